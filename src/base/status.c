/* Names of the status enums shared by every layer. */
#include "clatter/solvers.h"

const char *clt_status_name(clt_status_t status) {
  switch (status) {
    case CLT_OK: return "ok";
    case CLT_ERR_INVALID_ARGUMENT: return "invalid_argument";
    case CLT_ERR_OUT_OF_MEMORY: return "out_of_memory";
    case CLT_ERR_STALE_HANDLE: return "stale_handle";
    case CLT_ERR_UNSUPPORTED: return "unsupported";
    case CLT_ERR_NUMERICAL: return "numerical";
    case CLT_ERR_SOLVER: return "solver";
    case CLT_ERR_IO: return "io";
    case CLT_ERR_FORMAT: return "format";
    case CLT_ERR_DIVERGED: return "diverged";
  }
  return "unknown";
}

const char *clt_solver_status_name(clt_solver_status_t status) {
  switch (status) {
    case CLT_SOLVE_NONE: return "none";
    case CLT_SOLVE_SOLVED: return "solved";
    case CLT_SOLVE_RAY: return "ray";
    case CLT_SOLVE_MAX_ITERATIONS: return "max_iterations";
    case CLT_SOLVE_ERROR: return "error";
    case CLT_SOLVE_NOT_CONVERGED: return "not_converged";
  }
  return "unknown";
}

const char *clt_solver_kind_name(clt_solver_kind_t kind) {
  switch (kind) {
    case CLT_SOLVER_LEMKE: return "lemke";
    case CLT_SOLVER_BGS: return "bgs";
    case CLT_SOLVER_APGD: return "apgd";
    case CLT_SOLVER_BBPGD: return "bbpgd";
    case CLT_SOLVER_NEWTON: return "newton";
    case CLT_SOLVER_MPRGP: return "mprgp";
  }
  return "unknown";
}
