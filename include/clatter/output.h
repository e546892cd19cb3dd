/* clatter — run output: HDF5 trajectories, per-step diagnostics and checkpoints, plus the
 * diagnostics as CSV (layout: docs/output-format.md). Part of clatter_io (HDF5).
 *
 * A run writes OUT.h5.tmp and OUT.csv.tmp and renames them to OUT.h5 / OUT.csv in
 * clt_output_close, so a final name always holds a complete, valid file whose root attribute
 * "status" says whether the run completed, was interrupted or failed. The temporary files are
 * created exclusively (an existing file or a link there is an error, never followed or replaced)
 * and OUT.h5.tmp carries a write lock (an open file description lock) while a process writes it: a
 * second run on the same path fails at once and touches nothing of the first; only the files a
 * process made are removed when it gives up. A final file that exists is not replaced unless
 * CLT_OUTPUT_OVERWRITE is given (a resumed run replaces the file it continues). Data are buffered in memory
 * and flushed (with H5Fflush) every few thousand rows, at each checkpoint and at close.
 * The functions never print (HDF5's own error printing is silenced while they run). */
#ifndef CLATTER_OUTPUT_H
#define CLATTER_OUTPUT_H

#include "clatter/scene.h"
#include "clatter/world.h"

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define CLT_OUTPUT_FORMAT_NAME "clatter-run"
#define CLT_OUTPUT_FORMAT_VERSION 1

typedef enum clt_run_status_t {
  CLT_RUN_RUNNING,     /* only ever seen in a .tmp file */
  CLT_RUN_COMPLETE,    /* reached the scene's duration */
  CLT_RUN_INTERRUPTED, /* stopped early (signal or --max-steps); resumable from its checkpoint */
  CLT_RUN_ERROR,       /* a step failed; the data end at the last good step */
  CLT_RUN_DIVERGED     /* a step blew up (CLT_ERR_DIVERGED); the data end at the last good step */
} clt_run_status_t;

const char *clt_run_status_name(clt_run_status_t status); /* "running", "complete", ... */

typedef struct clt_output_t clt_output_t;

/* The CSV path beside an HDF5 path: "x.h5" / "x.hdf5" → "x.csv", anything else gets ".csv"
 * appended. */
void clt_output_csv_path(const char *h5_path, char *buf, size_t size);

/* Starts a run's output at path (final name; writes path + ".tmp" until closed): root attributes,
 * the scene JSON, the static body and shape tables, the step-0 trajectory frame and diagnostics
 * row of the world's current (initial) state. Which parts are written follows
 * clt_scene_output(scene). While the run writes, path + ".tmp.reserve" keeps 4 MiB of the disk,
 * given back when a write finds the disk full so that the file can still be closed at its last
 * complete step (CLT_ERR_IO from the record or close call, the file valid and resumable:
 * docs/output-format.md "A full disk"); a disk without that room fails here with CLT_ERR_IO. */
clt_status_t clt_output_create(const char *path, const clt_scene_t *scene, clt_world_t *world,
                               clt_output_t **out, char *message, size_t message_size);

/* clt_output_create with flags: CLT_OUTPUT_OVERWRITE replaces existing final files at close
 * (without it, an existing OUT.h5 or OUT.csv is CLT_ERR_IO before anything is written). */
#define CLT_OUTPUT_OVERWRITE 1u
clt_status_t clt_output_create_flags(const char *path, const clt_scene_t *scene, clt_world_t *world,
                                     unsigned flags, clt_output_t **out, char *message, size_t message_size);

/* Reopens a finished or interrupted run for continuation: copies path to path + ".tmp" (and its
 * CSV; a run killed before it closed left only path.tmp and its CSV's .tmp: they are taken as the
 * run file when they reach at least path's checkpoint, and refused while another process writes
 * them; a run killed before its first flush, in its first milliseconds, leaves a .tmp that
 * cannot be read, and nothing to continue: CLT_ERR_IO saying so), rebuilds the scene from the stored JSON and the world from the scene, restores the latest
 * checkpoint (or the initial state if the file has none) and truncates every dataset and the CSV
 * after the checkpoint's step. The caller steps the world on and closes as for a new run.
 * log (may be NULL) becomes the world's log sink. */
clt_status_t clt_output_resume(const char *path, clt_log_fn log, void *log_user, clt_scene_t **scene_out,
                               clt_world_t **world_out, clt_output_t **out, char *message,
                               size_t message_size);

/* A colony run (a scene with a "colony" block, clt_scene_colony): its world gains bodies as cells
 * divide. The output then grows with it (docs/output-format.md "Growing runs"): each frame adds
 * the new bodies' rows to /bodies and /shapes and their columns to the per-body series, and records
 * /trajectory/bodies and /trajectory/length. Attach the colony after clt_output_create so that
 * checkpoints hold its state (/checkpoint/colony); a colony run's checkpoint fails without it
 * (CLT_ERR_INVALID_ARGUMENT). The colony is not owned and must outlive the output. */
clt_status_t clt_output_attach_colony(clt_output_t *out, const clt_colony_t *colony);

/* clt_output_resume for a colony run: also rebuilds the colony (clt_scene_create_colony) and
 * restores its cells from the checkpoint before the world's state; *colony_out is the colony (the
 * caller owns it; NULL for a scene without one), already attached to the output. clt_output_resume
 * refuses a colony run's file (CLT_ERR_INVALID_ARGUMENT). */
clt_status_t clt_output_resume_colony(const char *path, clt_log_fn log, void *log_user, clt_scene_t **scene_out,
                                      clt_world_t **world_out, clt_colony_t **colony_out, clt_output_t **out,
                                      char *message, size_t message_size);

/* Records the step just taken: one diagnostics row (HDF5 and CSV) and, when the step count is a
 * multiple of the output interval, a trajectory frame. */
clt_status_t clt_output_record_step(clt_output_t *out, clt_world_t *world);

/* Records a trajectory frame of the world's current state now, off the output interval (nothing
 * when the last frame is of this step). clatter run records the end of a colony run so (its last
 * cells). */
clt_status_t clt_output_record_frame(clt_output_t *out, const clt_world_t *world);

/* Stores the world's complete state (clt_world_save_state) with its step and time, replacing the
 * previous checkpoint, and flushes everything written so far to disk. */
clt_status_t clt_output_write_checkpoint(clt_output_t *out, const clt_world_t *world);

/* Keeps the hash of the world's current state (clt_world_state_hash, as 16 hex digits) and its
 * step, written by clt_output_close as the root attributes state_hash and state_hash_step. Call
 * it with the state the run ends in, just before closing; a file closed without it has no
 * state_hash (a resumed file loses the one it had). */
void clt_output_record_final_state(clt_output_t *out, const clt_world_t *world);

/* Step of the checkpoint last written or restored (−1 if none). */
int64_t clt_output_checkpoint_step(const clt_output_t *out);

/* The checkpoint interval in steps kept in the file (root attribute checkpoint_every; 0: none),
 * so that a resumed run keeps the interval it was started with. */
clt_status_t clt_output_set_checkpoint_every(clt_output_t *out, int64_t steps);
int64_t clt_output_checkpoint_every(const clt_output_t *out);

/* Flushes, sets the status (and status_message, may be NULL), closes and renames the temporary
 * files to their final names. Frees out, also on failure. */
clt_status_t clt_output_close(clt_output_t *out, clt_run_status_t status, const char *status_message,
                              char *message, size_t message_size);

/* Closes and deletes the temporary files (a run that could not start). Frees out. */
void clt_output_discard(clt_output_t *out);

/* For programs that close every run file they open (the clatter CLI): keeps HDF5 from installing
 * its exit handler. Call it before any other clatter or HDF5 call. Why: when a write fails (a full
 * disk), HDF5 1.10 cannot close the file and keeps it, and at exit its handler crashed on that
 * file (SIGSEGV in H5F__close_cb) after clatter had reported the error. Affects the whole process:
 * a program with HDF5 files of its own that relies on HDF5 closing them at exit should not call it. */
void clt_output_no_exit_handler(void);

const char *clt_output_path(const clt_output_t *out);     /* final HDF5 path */
const char *clt_output_csv_file(const clt_output_t *out); /* final CSV path ("" if no CSV) */

/* ---------------------------------------------------------------------------------------------
 * The loop of a run (clatter run's, and the Python package's World.run): a run file created (or
 * resumed) for the world, then clt_output_run steps and records until the run ends, and the
 * caller closes the file with the status it returns. */
typedef struct clt_run_loop_t {
  int64_t end_step;         /* complete when the world's step count reaches it */
  int target_cells;         /* a colony run: complete when the colony has this many cells; 0: none */
  int64_t max_steps;        /* interrupted after this many steps of this call; < 0: no cap */
  int64_t checkpoint_every; /* a checkpoint after every step whose count is a multiple; 0: none */
  /* Optional, asked before each step: a non-zero value stops the run, interrupted, and is kept in
   * clt_run_result_t.stop_code (clatter run returns the signal that arrived; Python an exception). */
  int (*stop)(void *user);
  /* Optional, after each step is recorded (progress, statistics). */
  void (*stepped)(void *user, clt_world_t *world);
  void *user;
  /* Optional: the scene the world was built from; its functions of time drive the joints' motors
   * before each step (clt_scene_drive). */
  const clt_scene_t *scene;
} clt_run_loop_t;

typedef struct clt_run_result_t {
  clt_run_status_t status; /* complete, interrupted, error or diverged (what clt_output_close is given) */
  int stop_code;           /* the stop callback's value that interrupted the run, 0 otherwise */
  int64_t steps;           /* steps taken by this call */
  clt_status_t error;      /* status of the failed call: error or diverged; CLT_OK otherwise */
  char message[1024];      /* the status message ("" when complete): the failure, or why it stopped */
  char warning[256];       /* a part that could not be written at the end ("" if none) */
} clt_run_result_t;

/* Steps the world (a colony grows its cells first: clt_colony_grow) and records each step
 * (clt_output_record_step, and a checkpoint every checkpoint_every steps) until the run is complete
 * (end_step or target_cells), the stop callback or max_steps interrupts it, or a step or a write
 * fails (error; diverged for CLT_ERR_DIVERGED: the world keeps its last good state, world.h). Then
 * an interrupted run gets a checkpoint of its last state (so that clt_output_resume continues it
 * exactly), a complete colony run a frame of its last cells, and the file the final state's hash
 * (clt_output_record_final_state). colony may be NULL. Returns CLT_OK when result holds the outcome
 * (which may be an error of the run), CLT_ERR_INVALID_ARGUMENT for NULL arguments. */
clt_status_t clt_output_run(clt_output_t *out, clt_world_t *world, clt_colony_t *colony, const clt_run_loop_t *loop,
                            clt_run_result_t *result);

/* ---------------------------------------------------------------------------------------------
 * Reading back (clatter info, tests) */

#define CLT_OUTPUT_SOLVER_STATUSES 6 /* clt_solver_status_t values, none … not_converged */

typedef struct clt_output_summary_t {
  char format[32];
  int format_version;
  char clatter_version[32];
  char scene[256];
  int dimension;
  double time_step;
  int64_t total_steps; /* steps of the whole scene */
  char status[32];     /* complete | interrupted | error | diverged | running */
  char status_message[512];
  int64_t steps; /* last step recorded */
  double final_time;
  int bodies;
  int shapes;
  int64_t frames; /* trajectory frames */
  int64_t diagnostics_rows;
  double max_infeasibility;
  double max_penetration;
  double max_joint_error;
  int max_contacts;          /* most candidate contacts (active set) in a step */
  int max_touching_contacts; /* most touching contacts in a step; -1 for a file without the column */
  int64_t unconverged_steps; /* rows whose solver_status is not none or solved */
  /* ... of them by status (indexed by clt_solver_status_t) */
  int64_t unconverged_by_status[CLT_OUTPUT_SOLVER_STATUSES];
  int64_t first_unconverged_step; /* step of the first such row, −1 if none */
  int64_t worst_unconverged_step; /* step of the one with the largest residual, −1 if none */
  double worst_residual;          /* its residual (NaN where a solve failed to compute) */
  double tolerance;               /* the method's tolerance (root attribute; 0 in older files) */
  int max_solves;            /* most solves in a step (diagnostics column solves; 0 if absent) */
  int64_t resolved_steps;    /* rows with more than one solve (the relaxed active set's test) */
  int64_t set_miss_steps;    /* rows with set_misses > 0 (bodies left outside their boxes) */
  double initial_energy;     /* kinetic + potential, first and last diagnostics row */
  double final_energy;
  int64_t checkpoint_step; /* −1 if none */
  int64_t checkpoint_every; /* the interval it was run with (root attribute checkpoint_every), 0 if none */
  int64_t first_step;      /* step of the first row: 0, or the checkpoint a --start-from run began at */
  double wall_s;           /* sum of the per-step wall times */
  char state_hash[17];     /* clt_world_state_hash of the final state, 16 hex digits; "" if not stored */
  int64_t state_hash_step; /* the step it was taken at; −1 if none */
} clt_output_summary_t;

/* Reads a run file's summary. CLT_ERR_IO if it cannot be opened, CLT_ERR_FORMAT if it is not a
 * clatter run file or is damaged. */
clt_status_t clt_output_read_summary(const char *path, clt_output_summary_t *out, char *message,
                                     size_t message_size);

/* The stored scene JSON of a run file (malloc'ed; free it), or NULL with a message. */
char *clt_output_read_scene_json(const char *path, char *message, size_t message_size);

/* Loads the checkpoint of the run file at path (not changed) into world, which must have been
 * built from a scene with the same bodies, joints and force elements (materials, method, duration
 * may differ): its time, step count, body states and solver memory continue from there. *step is
 * the checkpoint's step. CLT_ERR_IO if the file cannot be opened, CLT_ERR_FORMAT if it is not a run
 * file, has no checkpoint, or the checkpoint does not fit the world (the message says which). A
 * run file created for such a world (clt_output_create) starts at that step: its root attribute
 * first_step (docs/output-format.md). */
clt_status_t clt_output_load_checkpoint(const char *path, clt_world_t *world, int64_t *step, char *message,
                                        size_t message_size);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
