/* Shared libraries opened on first use (library.h). */
#include "base/library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static bool open_locked(clt_library_t *lib) {
  dlerror();
  /* RTLD_LOCAL: the library's symbols serve only these lookups, never other objects' references */
  void *handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    snprintf(lib->error, sizeof lib->error, "cannot load %s (%s): %s; it comes with the packages of scripts/setup.sh",
             lib->what, lib->soname, why ? why : "unknown reason");
    return false;
  }
  for (int i = 0; i < lib->count; i++) {
    dlerror();
    void *address = dlsym(handle, lib->names[i]);
    if (!address) {
      const char *why = dlerror();
      snprintf(lib->error, sizeof lib->error, "%s (%s) has no routine %s: %s", lib->what, lib->soname,
               lib->names[i], why ? why : "null address");
      dlclose(handle);
      return false;
    }
    /* POSIX guarantees that a function's address from dlsym converts; C does not say so */
    memcpy(&lib->symbols[i], &address, sizeof address);
  }
  for (int i = lib->count; i < lib->count + lib->optional; i++) {
    void *address = dlsym(handle, lib->names[i]);
    memcpy(&lib->symbols[i], &address, sizeof address);
  }
  dlerror();
  return true; /* the handle stays open for the life of the process */
}

bool clt_library_open(clt_library_t *lib) {
  int state = atomic_load_explicit(&lib->state, memory_order_acquire);
  if (state != 0) return state > 0;
  pthread_mutex_lock(&open_lock);
  state = atomic_load_explicit(&lib->state, memory_order_relaxed);
  if (state == 0) {
    state = open_locked(lib) ? 1 : -1;
    if (state < 0) fprintf(stderr, "clatter: %s\n", lib->error);
    atomic_store_explicit(&lib->state, state, memory_order_release);
  }
  pthread_mutex_unlock(&open_lock);
  return state > 0;
}
