/* clatter fuzzing — runs a harness over files, for the ctest replay of the committed corpora and
 * for reproducing a fuzzer's finding in an ordinary (sanitizer) build: HARNESS FILE|DIR ... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open\n", path);
    return 1;
  }
  uint8_t *data = NULL;
  size_t size = 0, cap = 0;
  for (;;) {
    if (size == cap) {
      cap = cap ? 2 * cap : 65536;
      uint8_t *grown = realloc(data, cap);
      if (!grown) {
        fprintf(stderr, "%s: out of memory\n", path);
        free(data);
        fclose(f);
        return 1;
      }
      data = grown;
    }
    size_t n = fread(data + size, 1, cap - size, f);
    if (n == 0) break;
    size += n;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  int failed = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "%s: cannot open\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      failed |= run_file(argv[i]);
      count++;
      continue;
    }
    DIR *dir = opendir(argv[i]);
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; dir && (e = readdir(dir));) {
      if (e->d_name[0] == '.') continue;
      char **grown = realloc(names, (n + 1) * sizeof *names);
      if (!grown) break;
      names = grown;
      size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
      names[n] = malloc(len);
      snprintf(names[n++], len, "%s/%s", argv[i], e->d_name);
    }
    if (dir) closedir(dir);
    qsort(names, n, sizeof *names, by_name);
    for (size_t k = 0; k < n; k++) {
      failed |= run_file(names[k]);
      count++;
      free(names[k]);
    }
    free(names);
  }
  printf("%d inputs replayed\n", count);
  return failed || count == 0;
}
