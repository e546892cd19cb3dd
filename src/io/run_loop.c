/* The loop of a run: steps, records, checkpoints and the end of a run file (clatter/output.h
 * clt_output_run), shared by `clatter run` and the Python package. */
#include <stdio.h>
#include <string.h>

#include "clatter/colony.h"
#include "clatter/output.h"

clt_status_t clt_output_run(clt_output_t *out, clt_world_t *world, clt_colony_t *colony, const clt_run_loop_t *loop,
                            clt_run_result_t *result) {
  if (!out || !world || !loop || !result) return CLT_ERR_INVALID_ARGUMENT;
  memset(result, 0, sizeof *result);
  result->status = CLT_RUN_COMPLETE;
  result->error = CLT_OK;
  while (clt_world_step_count(world) < loop->end_step &&
         !(colony && loop->target_cells > 0 && clt_colony_cell_count(colony) >= loop->target_cells)) {
    int code = loop->stop ? loop->stop(loop->user) : 0;
    if (code != 0) {
      result->status = CLT_RUN_INTERRUPTED;
      result->stop_code = code;
      snprintf(result->message, sizeof result->message, "interrupted (stop code %d)", code);
      break;
    }
    if (loop->max_steps >= 0 && result->steps >= loop->max_steps) {
      result->status = CLT_RUN_INTERRUPTED;
      snprintf(result->message, sizeof result->message, "stopped after %lld steps (max_steps)",
               (long long)loop->max_steps);
      break;
    }
    /* the colony's growth and division, then the mechanics (clt_colony_step) */
    clt_status_t status = colony ? clt_colony_grow(colony) : CLT_OK;
    if (status == CLT_OK && loop->scene) status = clt_scene_drive(loop->scene, world);
    if (status == CLT_OK) status = clt_world_step(world);
    if (status != CLT_OK) {
      result->error = status;
      if (status == CLT_ERR_DIVERGED) {
        /* the message names the step, the quantity, the body and the bound (stage_diverge.c) */
        result->status = CLT_RUN_DIVERGED;
        snprintf(result->message, sizeof result->message, "%s", clt_world_error(world));
      } else {
        result->status = CLT_RUN_ERROR;
        snprintf(result->message, sizeof result->message, "step %lld failed (%s): %s",
                 (long long)clt_world_step_count(world) + 1, clt_status_name(status), clt_world_error(world));
      }
      break;
    }
    result->steps++;
    int64_t step = clt_world_step_count(world);
    status = clt_output_record_step(out, world);
    if (status == CLT_OK && loop->checkpoint_every > 0 && step % loop->checkpoint_every == 0)
      status = clt_output_write_checkpoint(out, world);
    if (status != CLT_OK) {
      result->status = CLT_RUN_ERROR;
      result->error = status;
      snprintf(result->message, sizeof result->message, "writing the output failed at step %lld", (long long)step);
      break;
    }
    if (loop->stepped) loop->stepped(loop->user, world);
  }
  /* An early stop always leaves a checkpoint of the final state so a resumed run continues exactly. */
  if (result->status == CLT_RUN_INTERRUPTED && clt_output_checkpoint_step(out) != clt_world_step_count(world) &&
      clt_output_write_checkpoint(out, world) != CLT_OK)
    snprintf(result->warning, sizeof result->warning, "could not write the final checkpoint");
  /* a colony run that reached its end: a frame of its last cells, whatever the interval */
  if (colony && result->status == CLT_RUN_COMPLETE && clt_output_record_frame(out, world) != CLT_OK)
    snprintf(result->warning, sizeof result->warning, "could not record the final frame");
  /* the state the run ends in (after a failed step: the last good one, restored by the library) */
  clt_output_record_final_state(out, world);
  return CLT_OK;
}
