/* Joint types (SPEC.md §0, §1): one file per type computing its constraint function Θ(q) and its
 * velocity rows ν = ∇Θ (checked against finite differences of Θ in tests/dynamics/test_joints.c),
 * and a table gathered in joint.c. The step assembles the rows into its problem (νᵀv⁺ + Υ = 0) in
 * src/steppers/stage_joint_rows.c. */
#ifndef CLATTER_CONSTRAINTS_JOINT_H
#define CLATTER_CONSTRAINTS_JOINT_H

#include "dynamics/world_internal.h"

/* One velocity row ν = ∇Θ of a two-body constraint (SPEC.md §0 "Jacobian row"):
 *   Θ̇ = linear_a·u_A + angular_a·ω_A + linear_b·u_B + angular_b·ω_B
 * with u world-frame linear velocities and ω BODY-frame angular velocities (3D); in 2D the linear
 * parts use [0], [1] and the angular parts [0] (multiplying the scalar ω). A ground side is 0. */
typedef struct clt_jacobian_row_t {
  double linear_a[3], angular_a[3];
  double linear_b[3], angular_b[3];
} clt_jacobian_row_t;

typedef struct clt_joint_ops_t {
  const char *name;
  bool allowed_2d;
  bool allowed_3d;
  bool uses_axis;   /* 3D revolute / prismatic: axis_a, axis_b must be non-zero */
  /* Θ at the current state; returns the number of components written (≤ 6). */
  int (*constraint)(const clt_world_t *world, const clt_joint_rec_t *joint, double theta[6]);
  /* The rows ν = ∇Θ at the current state, one per component of Θ, same order. */
  int (*rows)(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[6]);
} clt_joint_ops_t;

/* ν of a joint through the table (rows are zeroed first); returns the row count. */
int clt_joint_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[6]);

const clt_joint_ops_t *clt_joint_ops(clt_joint_type_t type);

/* Joint constraint values Θ (SPEC.md §1) at the current state: writes at most 6 components into
 * theta and returns their count. */
int clt_joint_constraint(const clt_world_t *world, const clt_joint_rec_t *joint, double theta[6]);
/* The record a handle names, for the getters and setters: CLT_ERR_STALE_HANDLE or, with out NULL,
 * CLT_ERR_INVALID_ARGUMENT, each with its message ("joint WHAT: ..."). */
clt_status_t clt_joint_lookup(const clt_world_t *world, clt_joint_id_t joint, const void *out, const char *what,
                              const clt_joint_rec_t **rec);

/* max |Θ| over all joints, and of every enabled limit's violation (0 with none). */
double clt_world_joint_error(const clt_world_t *world);

/* The coordinate θ of a revolute, prismatic or distance joint and its rate (clt_joint_get_state);
 * false for the others. */
bool clt_joint_coordinate(const clt_world_t *world, const clt_joint_rec_t *joint, double *position, double *rate);
/* The row of θ̇ = ν_θ v of a revolute or prismatic joint at the current state (docs/actuation.md:
 * the direction of its limit and motor rows); false for the others. */
bool clt_joint_coordinate_row(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t *row);
/* A spherical joint's swing: the angle between A's axis and B's axis (world.h clt_joint_limit_t),
 * its rate and its row (zero while the axes are aligned); and its twist: the revolute angle of B
 * about A's axis since creation, its rate and its row. */
void clt_joint_swing(const clt_world_t *world, const clt_joint_rec_t *joint, double *angle, double *rate,
                     clt_jacobian_row_t *row);
void clt_joint_twist(const clt_world_t *world, const clt_joint_rec_t *joint, double *angle, double *rate,
                     clt_jacobian_row_t *row);
/* The row of Θ = t·(p_B − p_A), t = R_A dir_a (a direction fixed in A): the prismatic joint's lateral
 * rows and its slide. Writes the parts of the sides that are bodies (the rest of row untouched). */
void clt_joint_slide_row(const clt_world_t *world, const clt_joint_rec_t *joint, const double dir_a[3],
                         clt_jacobian_row_t *row);
/* How far θ lies outside an enabled limit [lower, upper] (0 inside, or without a limit); a
 * spherical joint's swing past its cone or its twist outside its range. */
double clt_joint_limit_violation(const clt_world_t *world, const clt_joint_rec_t *joint);

extern const clt_joint_ops_t clt_joint_ops_revolute, clt_joint_ops_spherical, clt_joint_ops_prismatic,
    clt_joint_ops_fixed, clt_joint_ops_distance;

/* Shared pieces of Θ. */
/* World anchor points of both sides. */
void clt_joint_anchors(const clt_world_t *world, const clt_joint_rec_t *joint, double pa[3], double pb[3]);
/* Orientation of a side (identity for the ground; 2D worlds have no quaternion). */
void clt_joint_orientation(const clt_world_t *world, int body, double r[4]);
/* Rotation error of the relative orientation against its creation value: 2·vec(q_err), with
 * q_err = rel0⁻¹ ⊗ r_A⁻¹ ⊗ r_B taken in the hemisphere w ≥ 0 (≈ the rotation vector). */
void clt_joint_rotation_error(const clt_world_t *world, const clt_joint_rec_t *joint, double out[3]);
/* Rows of the rotation error above (3 rows). */
void clt_joint_rotation_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t rows[3]);
/* Adds sign · (row of n·ṗ) for the point p = body point `local` (principal frame) to one side of
 * a row (SPEC.md §0: nᵀu + (ρ_B × n_B)ᵀω, 2D: n_x ẋ + n_y ẏ + (ρ × n) ω). Ground: nothing. */
void clt_point_row(const clt_world_t *world, int body, const double local[3], const double n[3], double sign,
                   double linear[3], double angular[3]);
/* Point coincidence p_A − p_B: one row per world axis (2 in 2D, 3 in 3D). */
int clt_joint_point_rows(const clt_world_t *world, const clt_joint_rec_t *joint, clt_jacobian_row_t *rows);

#endif
