/* The files a run writes and the disk they are on (clatter/output.h, docs/output-format.md "Life
 * cycle, interruption and resume" and "A full disk"): the temporary files are made exclusively,
 * never through a link, and OUT.h5.tmp is locked while written, so that a second run on the same
 * path fails at once and touches nothing of the first; a reserve beside them keeps room to close
 * the file when the disk fills up, and a failed write is salvaged (the file cut back to its last
 * complete step and closed); closing publishes the temporary files under their final names; and
 * --resume first recovers the temporary files a killed run left. */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC, open file description locks (F_OFD_SETLK), link */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/output_internal.h"

/* The reserve's size: room for HDF5 to write its cached metadata and close the file, and for the
 * CSV to be cut, after a write found the disk full (docs/output-format.md "A full disk"). */
#define RESERVE_BYTES ((off_t)4 << 20)

/* Whether the disk holding the output has `bytes` free for this process (root may use the blocks
 * a file system keeps back from other users; true when it cannot be told). A flush is not started
 * without room: HDF5 1.10 cannot flush or close a file again after a metadata flush failed
 * half-way ("slist already enabled"), but it can after a refused one, and the reserve then closes
 * it (salvage). */
bool output_room_for(const clt_output_t *out, uint64_t bytes) {
  struct statvfs vfs;
  if (statvfs(out->tmp_path, &vfs) != 0) return true;
  uint64_t blocks = geteuid() == 0 ? (uint64_t)vfs.f_bfree : (uint64_t)vfs.f_bavail;
  return blocks * (uint64_t)vfs.f_frsize >= bytes;
}

void output_release_reserve(clt_output_t *out) {
  if (out->reserve_path && out->reserve_path[0]) {
    unlink(out->reserve_path);
    out->reserve_path[0] = '\0';
  }
}

/* Marks out failed after a write that did not succeed, keeping errno's reason; a full disk gets
 * the reserve's room back at once. */
void output_note_failure(clt_output_t *out, int err) {
  if (!out->failed) out->write_errno = err;
  out->failed = true;
  output_release_reserve(out);
}

/* ---------------------------------------------------------------------------------------------
 * Temporary files: made exclusively, never through a link, locked while written (output.h) */

/* Whether some open file holds a write lock on path (false also when path cannot be opened).
 * The lock is an open file description lock (F_OFD_SETLK): a classic POSIX lock belongs to the
 * process and goes when it closes any descriptor of the file, which HDF5 does while it creates
 * one, and a BSD lock (flock) would collide with HDF5's own on its descriptor. */
static bool locked(const char *path) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  bool held = fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
  close(fd);
  return held;
}

/* Why a temporary file that exists cannot be made: another run is writing it, or one was
 * interrupted (then --resume continues it). */
static void explain_existing(const char *tmp, const char *final, char *message, size_t size) {
  if (locked(tmp))
    snprintf(message, size, "%s: another run is writing %s (it holds the lock on this file); wait for it or "
             "choose another -o", tmp, final);
  else
    snprintf(message, size,
             "%s exists: a run writing %s was interrupted; continue it with `clatter run --resume %s`, or delete %s "
             "to start again",
             tmp, final, final, tmp);
}

/* Creates path (which must not exist; a link there is not followed) for writing. lock: also takes
 * a write lock on it (locked()), kept while the descriptor is open. Returns the descriptor, or −1 with a
 * message. */
int output_create_exclusive(const char *path, const char *final, bool lock, char *message, size_t size) {
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) explain_existing(path, final, message, size);
    else snprintf(message, size, "%s: cannot create: %s", path, strerror(errno));
    return -1;
  }
  if (lock) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
      snprintf(message, size, "%s: cannot lock: %s", path, strerror(errno));
      close(fd);
      unlink(path);
      return -1;
    }
  }
  return fd;
}

/* Makes out->reserve_path (RESERVE_BYTES of allocated blocks) beside the temporary file. A
 * reserve left by a killed run of the same output is replaced: the caller holds the lock on the
 * temporary file, so no live run owns it. False with the system's reason when there is no room. */
bool output_make_reserve(clt_output_t *out, char *message, size_t size) {
  unlink(out->reserve_path);
  int fd = open(out->reserve_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err = fd < 0 ? errno : posix_fallocate(fd, 0, RESERVE_BYTES);
  if (fd >= 0) close(fd);
  if (err != 0) {
    if (fd >= 0) unlink(out->reserve_path);
    out->reserve_path[0] = '\0';
    snprintf(message, size,
             "%s: cannot keep %d MiB of room beside the output (%s): a run keeps it to close its file cleanly "
             "if the disk fills up",
             out->tmp_path, (int)(RESERVE_BYTES >> 20), strerror(err));
    return false;
  }
  return true;
}

/* Whether path is still the file behind fd (nobody swapped it between our create and a reopen
 * by name, as HDF5 does). */
bool output_same_inode(int fd, const char *path) {
  struct stat a, b;
  return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && S_ISREG(b.st_mode) && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

/* tmp → final: rename where the final file may be replaced (a resumed run, --overwrite), else a
 * hard link that fails if the final name exists, then the temporary name removed. */
int output_publish(const char *tmp, const char *final, bool replace) {
  if (replace) return rename(tmp, final);
  if (link(tmp, final) != 0) return -1;
  return unlink(tmp);
}

/* A final name that must not be replaced: refused when it exists (or is a folder either way). */
bool output_final_free(const char *path, bool overwrite, char *message, size_t size) {
  struct stat st;
  if (lstat(path, &st) != 0) return true;
  if (S_ISDIR(st.st_mode)) {
    snprintf(message, size, "%s: is a folder, not an output file", path);
    return false;
  }
  if (overwrite) return true;
  snprintf(message, size, "%s exists; give --overwrite to replace it (or --resume to continue it)", path);
  return false;
}

/* Copies from into the empty file open on descriptor fd, which stays open (it holds the temporary
 * run file's lock). */
bool output_copy_file(const char *from, int fd) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0) return false;
  char buf[1 << 16];
  bool ok = true;
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    for (ssize_t done = 0; ok && done < n;) {
      ssize_t w = write(fd, buf + done, (size_t)(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) ok = false;
      else done += w;
    }
    if (!ok) break;
  }
  close(in);
  return ok;
}

/* The step of the checkpoint of the file at path: −1 without one, −2 when it cannot be read. */
static int64_t file_checkpoint_step(const char *path) {
  clt_h5_silence_t quiet = clt_h5_silence();
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  int64_t step = file >= 0 ? clt_run_file_checkpoint_step(file) : -2;
  if (file >= 0) H5Fclose(file);
  clt_h5_restore(quiet);
  return step;
}

/* A run killed before it closed leaves path.tmp (and the CSV's .tmp), and --resume is given the
 * final name: the temporary files take the final names when they are readable and reach at least
 * the final file's checkpoint (a run killed while resuming copies the final file first, so a
 * half-copied .tmp is dropped instead). Refused while another process holds their lock. */
bool output_recover_interrupted(const char *path, char *message, size_t size) {
  char *tmp = output_concat(path, ".tmp");
  char csv[4096];
  clt_output_csv_path(path, csv, sizeof csv);
  char *csv_tmp = output_concat(csv, ".tmp");
  bool ok = tmp && csv_tmp;
  struct stat st;
  if (ok && lstat(tmp, &st) == 0) {
    if (locked(tmp)) {
      snprintf(message, size, "%s: another run is writing %s (it holds the lock on this file)", tmp, path);
      ok = false;
    } else if (!S_ISREG(st.st_mode)) {
      snprintf(message, size, "%s: not a regular file; remove it", tmp);
      ok = false;
    } else {
      bool have_final = lstat(path, &st) == 0;
      int64_t tmp_step = file_checkpoint_step(tmp);
      int64_t final_step = have_final ? file_checkpoint_step(path) : -2;
      if (tmp_step >= -1 && tmp_step >= final_step) {
        if (rename(tmp, path) != 0) {
          snprintf(message, size, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
          ok = false;
        } else if (lstat(csv_tmp, &st) == 0 && S_ISREG(st.st_mode) && rename(csv_tmp, csv) != 0) {
          snprintf(message, size, "%s: cannot rename to %s: %s", csv_tmp, csv, strerror(errno));
          ok = false;
        }
      } else if (have_final) { /* the final file is the better one: the leftovers go */
        unlink(tmp);
        if (lstat(csv_tmp, &st) == 0 && S_ISREG(st.st_mode)) unlink(csv_tmp);
      } else {
        snprintf(message, size,
                 "%s cannot be read and there is no %s: the run was stopped before its first data reached the disk "
                 "(its first few milliseconds), so there is nothing to continue; delete %s and start the run again",
                 tmp, path, tmp);
        ok = false;
      }
    }
  }
  free(tmp);
  free(csv_tmp);
  return ok;
}

static int64_t min_rows(int64_t a, hid_t dset) {
  hsize_t rows = output_table_rows(dset);
  return (int64_t)rows < a ? (int64_t)rows : a;
}

/* After a failed write (a full disk, whose reserve is then free): every table is cut back to the
 * last step that all of them hold, the CSV to the same rows, the buffered rows are dropped, and
 * the file is closed with status "error" (the run's own message when it already failed, else
 * the write's) and the step it now ends at, without a state hash (the world's state is of a later
 * step). Its checkpoint, if it has one, is at or before that step, so --resume continues it.
 * *last is the step kept. False if HDF5 could not do it. */
static bool salvage(clt_output_t *out, clt_run_status_t run_status, const char *status_message, int64_t *last) {
  out->diag_rows = 0;
  out->traj_rows = 0;
  out->cont_rows.rows = 0;
  int64_t kept = INT64_MAX;
  double kept_time = NAN;
  if (out->csv) { /* its buffer may reach the disk now; the rows it holds bound the step kept */
    fclose(out->csv);
    out->csv = NULL;
    int64_t rows = output_csv_rows(out->csv_tmp_path);
    if (rows <= 0) return false;
    kept = out->first_step + rows - 1;
  }
  hsize_t diag_keep = 0, traj_keep = 0;
  if (out->options.diagnostics) {
    int64_t rows = INT64_MAX;
    for (int c = 0; c < COLUMN_COUNT; c++) rows = min_rows(rows, out->diag[c]);
    if (rows <= 0) return false;
    int64_t step = (int64_t)output_table_value(out->diag[COLUMN_step], (hsize_t)rows - 1);
    if (step < kept) kept = step;
  }
  if (out->options.trajectory) {
    int64_t rows = INT64_MAX;
    for (int k = 0; k < TRAJ_COUNT; k++)
      if (output_traj_enabled(out, k)) rows = min_rows(rows, out->traj[k]);
    if (out->contacts) rows = min_rows(min_rows(rows, out->cont[CONT_FIRST]), out->cont[CONT_COUNT]);
    if (rows <= 0) return false;
    int64_t step = (int64_t)output_table_value(out->traj[TRAJ_STEP], (hsize_t)rows - 1);
    if (step < kept) kept = step;
    for (int k = 0; k < TRAJ_COUNT; k++)
      if (output_traj_enabled(out, k) && output_truncate_rows(out->traj[k], (hsize_t)rows) < 0) return false;
    int64_t keep = output_rows_upto(out->traj[TRAJ_STEP], kept);
    if (keep < 0) return false;
    traj_keep = (hsize_t)keep;
    for (int k = 0; k < TRAJ_COUNT; k++)
      if (output_traj_enabled(out, k) && output_truncate_rows(out->traj[k], traj_keep) < 0) return false;
    if (out->contacts && !output_truncate_contacts(out, keep)) return false;
    kept_time = traj_keep > 0 ? output_table_value(out->traj[TRAJ_TIME], traj_keep - 1) : NAN;
  }
  if (kept == INT64_MAX || kept < out->first_step) return false;
  if (out->options.diagnostics) {
    diag_keep = (hsize_t)(kept - out->first_step + 1);
    for (int c = 0; c < COLUMN_COUNT; c++)
      if (output_truncate_rows(out->diag[c], diag_keep) < 0) return false;
    kept_time = output_table_value(out->diag[COLUMN_t], diag_keep - 1);
  }
  /* a checkpoint half-written is dropped; one beyond the data kept cannot be resumed from */
  if (H5Lexists(out->file, "checkpoint_next", H5P_DEFAULT) > 0 && H5Ldelete(out->file, "checkpoint_next", H5P_DEFAULT) < 0)
    return false;
  int64_t at = clt_run_file_checkpoint_step(out->file); /* −2: unreadable */
  if ((at == -2 || at > kept) && H5Ldelete(out->file, "checkpoint", H5P_DEFAULT) < 0) return false;
  char why[256];
  if (run_status == CLT_RUN_ERROR && status_message && status_message[0])
    snprintf(why, sizeof why, "%s", status_message);
  else
    snprintf(why, sizeof why, "writing the output failed (%s) after step %lld",
             out->write_errno ? strerror(out->write_errno) : "the HDF5 library reported an error", (long long)kept);
  bool ok = output_set_attr_string(out->file, "status", clt_run_status_name(CLT_RUN_ERROR)) >= 0 &&
            output_set_attr_string(out->file, "status_message", why) >= 0 &&
            output_set_attr_int64(out->file, "steps", kept) >= 0 &&
            output_set_attr_double(out->file, "final_time", isnan(kept_time) ? out->last_time : kept_time) >= 0;
  if (ok && H5Aexists(out->file, "state_hash") > 0) ok = H5Adelete(out->file, "state_hash") >= 0;
  if (ok && H5Aexists(out->file, "state_hash_step") > 0) ok = H5Adelete(out->file, "state_hash_step") >= 0;
  if (!ok) return false;
  for (int i = 0; i < COLUMN_COUNT; i++)
    if (out->diag[i] > 0) H5Dclose(out->diag[i]), out->diag[i] = -1;
  for (int i = 0; i < TRAJ_COUNT; i++)
    if (out->traj[i] > 0) H5Dclose(out->traj[i]), out->traj[i] = -1;
  for (int i = 0; i < CONT_DATASETS; i++)
    if (out->cont[i] > 0) H5Dclose(out->cont[i]), out->cont[i] = -1;
  ok = H5Fclose(out->file) >= 0;
  out->file = -1;
  if (out->csv_path[0]) ok = ok && output_cut_csv(out->csv_tmp_path, kept - out->first_step + 1);
  *last = kept;
  return ok;
}

/* After a failed write: the file is cut back to its last complete step and closed (salvage) and
 * the temporary files renamed as at any close; if even that fails, the HDF5 objects are let go
 * without closing them (the CLI keeps HDF5 from writing at exit, clt_output_no_exit_handler), and
 * the temporary files stay for --resume, which continues from their last checkpoint if it reached
 * the disk. Either way the status is CLT_ERR_IO with the reason. */
clt_status_t output_close_failed(clt_output_t *out, clt_run_status_t run_status, const char *status_message,
                                 char *message, size_t message_size) {
  const char *why = out->write_errno ? strerror(out->write_errno) : "the HDF5 library reported an error";
  clt_h5_silence_t quiet = clt_h5_silence();
  int64_t last = -1;
  bool saved = salvage(out, run_status, status_message, &last);
  clt_h5_restore(quiet);
  if (saved && output_publish(out->tmp_path, out->path, out->replace_final) == 0 &&
      (!out->csv_path[0] || output_publish(out->csv_tmp_path, out->csv_path, out->replace_final) == 0)) {
    snprintf(message, message_size,
             "%s: writing failed (%s); %s holds the run up to step %lld: make room and continue with "
             "`clatter run --resume %s`",
             out->tmp_path, why, out->path, (long long)last, out->path);
    output_free(out);
    return CLT_ERR_IO;
  }
  snprintf(message, message_size,
           "%s: writing failed (%s); the file is left as it was at its last flush: make room and continue "
           "with `clatter run --resume %s`, or delete %s",
           out->tmp_path, why, out->path, out->tmp_path);
  for (int i = 0; i < COLUMN_COUNT; i++) out->diag[i] = -1;
  for (int i = 0; i < TRAJ_COUNT; i++) out->traj[i] = -1;
  for (int i = 0; i < CONT_DATASETS; i++) out->cont[i] = -1;
  out->file = -1;
  if (out->csv) fclose(out->csv);
  out->csv = NULL;
  output_free(out);
  return CLT_ERR_IO;
}
