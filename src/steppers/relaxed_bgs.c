/* The coloured cone block Gauss–Seidel of the `relaxed` scheme (SPEC.md §2.2 applied to the dual
 * of the §2.3 QP; method.solver = bgs). docs/stepping.md "The relaxed scheme" has the measurements.
 *
 * The QP's dual in the contact frame. Contact j contributes the rows (n, t1, t2) (2D: (n, t1)) and
 * its impulse P_j = (P_N, P_T) in the contact frame; the dual is
 *     min ½ Pᵀ A P + bᵀ P,  A = G M̂⁻¹ Gᵀ,  b = G v_free + (Δ_j on the normal rows),
 *     P_j ∈ K_j = {‖P_T‖ ≤ μ_j P_N}                  (circular cone)
 *     P_j ∈ K_j = {P_T ∈ μ_j P_N conv{d_1 … d_m}}    (polyhedral: the generators' cone),
 * joint multipliers free. It is the generator form of stage_solve_relaxed.c re-parametrized by the
 * impulse (P_N = Σ x_i, P_T = μ Σ x_i d_i), so v⁺ — unique, the primal is strictly convex — is the
 * same; only the cone's description differs.
 *
 * One block per contact, matrix-free ("sequential impulses" in velocity space): every dynamic body
 * keeps dv = M̂⁻¹ Gᵀ P; a block reads w_j = b_j + J_j dv, takes the step
 *     P_j ← Π^D_{K_j}(P_j − D_j⁻¹ w_j),   D_j = σ_j diag(a_N, a_T, a_T),
 * Π^D the projection in the D-metric (closed form: a scaled Euclidean projection onto the cone with
 * μ' = μ √(a_T/a_N)), and adds M̂⁻¹ J_jᵀ ΔP_j to its two bodies. Its fixed points are exactly the
 * QP's solutions for any such D. For spheres (every sphere–sphere / sphere–plane contact) A_jj is
 * exactly diag(a_N, a_T, a_T), so with σ = 1 one step solves the local problem exactly; for other
 * blocks σ ≥ λ_max(D⁻½ A_jj D⁻½) (Gershgorin) makes the step a descent step and it is repeated
 * (at most RELAXED_INNER times) to solve the local problem.
 *
 * Coulomb's law (s = 0: scheme anitescu-hart on the circular cone, clt_scheme_coulomb_circular,
 * cone_t.coulomb). The same sweeps solve each contact's Coulomb problem instead of the relaxed one:
 * with w̃ = (w_N + μ‖w_T‖, w_T) (De Saxcé), P ∈ K, w̃ ∈ K*, Pᵀw̃ = 0, so a sliding contact slides
 * at w_N = 0 where the relaxation lifts it at μ‖w_T‖. A sphere block (A_jj = diag(a_N, a_T, a_T))
 * has it in closed form: the sticking impulse, or 0 where it pulls, or its normal part with the
 * tangential part scaled back onto the cone; another block takes D-metric De Saxcé steps. This is
 * not a convex QP: the fixed points are Coulomb's law, but Gauss–Seidel is not a descent method on
 * it and needs more sweeps on impacts (docs/design/granular.md "Rest and creep"). The residual is the
 * De Saxcé natural map (block_residual). APGD and BBPGD do not apply (world.c refuses them).
 *
 * Parallel and deterministic. Contacts are coloured greedily in contact order (the narrow phase's
 * order, a function of the state only): a contact gets the lowest colour that neither of its dynamic
 * bodies has yet, so the contacts of one colour share no dynamic body. A sweep runs the joint rows
 * (scalar, serial), then the colours in order; within a colour every block reads and writes only
 * its own two bodies, so any thread schedule gives the same numbers: the result does not depend on
 * the thread count. Up to 64 colours; contacts that find none (a body with > 63 contacts) go into
 * a last colour that runs serially.
 *
 * Stopping: the natural-map residual of SPEC.md §2.3, max over blocks of ‖P − Π_K(P − w)‖∞ (free
 * rows: |w|), scaled by 1 + ‖b‖∞ (method.absolute_tolerance: the stop test compares the unscaled
 * residual with the tolerance; the reported residual stays scaled; method.velocity_tolerance, when
 * set, caps the tolerance the test uses). A sweep measures ‖D ΔP‖∞ per block (|w| where the block moves
 * freely; it runs ≈ 1.5× above the residual on piles); when that is within 3× the tolerance the
 * residual of the final iterate is computed exactly, and only that one decides and is reported.
 * That check scans the hot blocks first and stops at the first block above the tolerance (on the
 * 10³ pile 97 % of the checks fail, and stopping early cut their cost 15-fold); a check that passes
 * has scanned every block, so the residual it reports is the exact max, and the decision is the
 * same as a full scan's. After each sweep up to RELAXED_FOCUS focused passes revisit, in the same colour order,
 * the blocks whose last update exceeded RELAXED_HOT × the tolerance (a pile's residual sits in few
 * blocks). Warm start: the contact memory (c_n and the tangential impulse vector, i.e. P itself;
 * in a later solve of the step, the memory the solve before left: stage "active set test", relaxed.h)
 * projected onto this step's cone, and the joint memory.
 *
 * Speed (docs/design/granular.md "Memory"): the blocks are records in colour order (the sweeps
 * stream them), 368 bytes with the rows stored transposed so that a block's three velocities are
 * one 4-lane vector expression, or 208 bytes in the sphere layout (relaxed.h: every contact between
 * spheres centred on their bodies and static bodies, as in the granular piles; its rows are n, t1
 * and the two lever arms, t2 = n × t1 is made where it is read, and the angular velocity changes
 * are world-frame; 2026-11-28, 8·10³ pile: 4.3 instead of 4.8 kB a body at the peak); dv 8
 * doubles per body (in the sphere layout with 1/m and 1/J in its padding lanes); the kernel is
 * instantiated for the piles' case (3D, circular cone; ω a run-time argument) in both layouts and,
 * on x86-64, built for AVX2 and the baseline and
 * chosen at load time. Every instance evaluates the same IEEE operations in the same order as the
 * scalar code (no FMA: -ffp-contract=off), so the numbers do not depend on the instance or the
 * machine. The focused passes walk a list of the hot blocks (not a scan of every flag; on every
 * thread from RELAXED_LIST_PARALLEL_MIN hot blocks, a share of each colour per thread, compacted in
 * place run by run as it is visited: 2026-11-23) and prefetch the blocks and body slots a few
 * visits ahead; the body updates are 4-lane vectors (2026-11-22, pile 10³: CPU −5 % median, −7 %
 * best of ten; same bits). In parallel, a thread done with its share of a colour takes runs of the
 * shares still unfinished, in the full sweeps and the focused passes (2026-11-28: with equal
 * shares the two threads of the N = 10⁵ pile spent 175 ms of their 2.0 s of CPU a step waiting at
 * barriers, in the sweeps and in the broad phase). The 3D blocks are built by build_block3 (one
 * rotation matrix per body and solve, the upper triangle of A_jj) and the warm start looks the
 * contact memory up in contact order with a hint: pile 10³ at tolerance 5e-3, 51.3 → 49.3 M
 * instructions per step (callgrind), same bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/pages.h"
#include "math/vec.h"
#include "solvers/colouring.h"
#include "steppers/relaxed.h"
#include "base/parallel.h"

_Static_assert(CLT_RELAXED_MAX_COLOURS == CLT_COLOUR_MAX, "the blocks are coloured by clt_colour_pairs");

#define CLT_TWO_PI 6.283185307179586476925286766559
/* Contacts from which a sweep runs in parallel: below it, a parallel region per sweep costs more
 * than it saves (and spinning threads are slow on a loaded machine). The numbers do not depend on
 * it. */
#define RELAXED_BGS_PARALLEL_MIN 4000
/* Hot blocks from which a focused pass (over the hot list only) runs in parallel. */
#define RELAXED_LIST_PARALLEL_MIN 1000
#define RELAXED_LIST_SHARES 256 /* at most this many threads build the hot list */
#define RELAXED_INNER 8
#define RELAXED_FOCUS 3
#define RELAXED_PREFETCH 4 /* blocks ahead whose body slots a sweep prefetches */
#define RELAXED_RUN 128 /* blocks a thread takes at a time in a parallel sweep (colour_sweep) */
#define RELAXED_LIST_RUN 64 /* hot-list entries a thread takes at a time in a parallel focused pass */
#define RELAXED_CURSOR_STRIDE 16 /* ints between colour_sweep's cursors: one 64-byte line each */
#define RELAXED_HOT 0.25 /* × tolerance: the blocks the focused passes revisit */
#define RELAXED_MAX_COLOURS CLT_RELAXED_MAX_COLOURS

/* The cone of a solve: μ per contact, polyhedral with m generators (m = 0: circular). */
typedef struct cone_t {
  int dim, m;
  double cs[64], sn[64]; /* generator angles (polyhedral, 3D) */
  double cos_half;       /* cos(π/m): inradius / circumradius of the polygon */
  int md;                /* the m_C balanced directions of work->z (3D, ≤ 64; 0: computed per call) */
  double dc[64], ds[64];
  int coulomb; /* s = 0 (scheme anitescu-hart on the circular cone): Coulomb's law, not its relaxation */
} cone_t;

/* The block kernels below take the dimension and the cone kind (circ: circular, or 2D) as
 * arguments and are always inlined: the sweep instantiates them once with the constants of the
 * common case (3D, circular cone: every granular pile, over-relaxed or not) and once generic, so
 * the hot loop of a pile has no branches on the problem's kind. Both instances evaluate the same
 * expressions in the same order (-ffp-contract=off): the numbers do not depend on which one ran. */
#define BGS_INLINE static inline __attribute__((always_inline))

/* Per body in dv and inv: 8 doubles, the linear part in [0, 3) and the angular part in [4, 7),
 * so that the fast kernel moves each part as one 4-wide vector. inv: 1/m at [0] and the diagonal
 * of J⁻¹ at [4, 7) (padding 0). dv's fourth lanes hold 1/m (DV_INV_MASS) and J⁻¹'s first diagonal
 * entry (DV_INV_INERTIA), written for every solve. The sphere layout, whose bodies have isotropic
 * inertia, reads them there (its kernel reads the body's one slot) and inv is not written (64
 * bytes a body less in the solve, and one body slot read instead of two: with the shorter sphere
 * record, the 10⁵ pile's step on one thread is 19 % faster; the other layouts fill inv from them).
 * The vector updates leave those lanes as they are: they add or subtract a finite factor times an
 * exact 0. */
/* The records are built in runs of this many slots, after each of which the warm start's impulses
 * of its contacts are given back (128 kB of them; clt_relaxed_bgs_solve) */
#define BUILD_RUN 4096
#define DV_STRIDE 8
#define DV_ANG 4
#define DV_INV_MASS 3
#define DV_INV_INERTIA 7

/* 4 doubles as one value (GCC vector extension; lowered to pairs of SSE2 operations where AVX is
 * not available). Each lane is one IEEE operation of the scalar code in the same order: no
 * reassociation, no contraction (-ffp-contract=off), so the lanes give the scalar code's bits. */
typedef double v4d __attribute__((vector_size(32), aligned(8), may_alias)); /* any double array */
#define ld4(p) (*(const v4d *)(p))
#define st4(p, v) (*(v4d *)(p) = (v))

/* Euclidean projection of s onto {‖s_T‖ ≤ mu s_N} (circular) or the polyhedral cone generated by
 * (1, mu d_k) (SPEC.md §2.3 "exact circular cone" / the generators). */
BGS_INLINE void project_k(const cone_t *k, double mu, double s[3], int dim, int circ) {
  if (circ) {
    double tt = s[1] * s[1] + (dim == 3 ? s[2] * s[2] : 0.0);
    if (s[0] >= 0.0 && tt <= mu * mu * s[0] * s[0]) return; /* inside: no square root */
    double tn = sqrt(tt);
    if (tn <= mu * s[0] && s[0] >= 0.0) return; /* (s_N ≥ 0 matters for μ = 0: 0 ≤ 0 · s_N for any s_N) */
    if (mu * tn <= -s[0]) {
      s[0] = s[1] = s[2] = 0.0;
      return;
    }
    double a = (s[0] + mu * tn) / (1.0 + mu * mu);
    double f = mu * a / tn;
    s[0] = a;
    s[1] *= f;
    s[2] *= f;
    return;
  }
  /* polyhedral, 3D: inside when s_N ≥ 0 and s_T is within every edge of the polygon */
  int m = k->m;
  double rin = mu * k->cos_half * s[0];
  bool inside = s[0] >= 0.0;
  for (int e = 0; inside && e < m; e++) {
    int e2 = e + 1 == m ? 0 : e + 1;
    /* outward normal of edge (e, e2): the bisector of the two generator directions */
    double nx = k->cs[e] + k->cs[e2], ny = k->sn[e] + k->sn[e2];
    double len = sqrt(nx * nx + ny * ny);
    if ((s[1] * nx + s[2] * ny) / len > rin) inside = false;
  }
  if (inside) return;
  double ss = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
  double best = ss, out[3] = {0.0, 0.0, 0.0};
  double ee = 1.0 + mu * mu;
  for (int e = 0; e < m; e++) {
    int e2 = e + 1 == m ? 0 : e + 1;
    double g1[3] = {1.0, mu * k->cs[e], mu * k->sn[e]}, g2[3] = {1.0, mu * k->cs[e2], mu * k->sn[e2]};
    double p1 = clt_v3_dot(s, g1), p2 = clt_v3_dot(s, g2), g12 = clt_v3_dot(g1, g2);
    if (p1 > 0.0) { /* the ray g1 */
      double t = p1 / ee, d = ss - t * p1;
      if (d < best) {
        best = d;
        clt_v3_scale(out, g1, t);
      }
    }
    double det = ee * ee - g12 * g12;
    if (det > 0.0) { /* the facet (g1, g2) */
      double al = (ee * p1 - g12 * p2) / det, be = (ee * p2 - g12 * p1) / det;
      if (al >= 0.0 && be >= 0.0) {
        double d = ss - (al * p1 + be * p2);
        if (d < best) {
          best = d;
          for (int i = 0; i < 3; i++) out[i] = al * g1[i] + be * g2[i];
        }
      }
    }
  }
  clt_v3_copy(s, out);
}

/* Whether a solve's cone is handled by the circular branch of project_k. */
static int cone_circ(const cone_t *k) { return k->dim == 2 || k->m == 0; }

static void project(const cone_t *k, double mu, double s[3]) { project_k(k, mu, s, k->dim, cone_circ(k)); }

/* The body velocities a block's rows act on: la = dv_b − dv_a (linear), aa, ab the angular parts
 * (zero for a static side). */
BGS_INLINE void block_bodies(const clt_relaxed_contact_t *ct, const double *dv, double la[3], double aa[3],
                             double ab[3]) {
  for (int i = 0; i < 3; i++) la[i] = aa[i] = ab[i] = 0.0;
  if (ct->a >= 0) {
    const double *va = dv + DV_STRIDE * (size_t)ct->a;
    la[0] = -va[0], la[1] = -va[1], la[2] = -va[2];
    aa[0] = va[DV_ANG], aa[1] = va[DV_ANG + 1], aa[2] = va[DV_ANG + 2];
  }
  if (ct->b >= 0) {
    const double *vb = dv + DV_STRIDE * (size_t)ct->b;
    la[0] += vb[0], la[1] += vb[1], la[2] += vb[2];
    ab[0] = vb[DV_ANG], ab[1] = vb[DV_ANG + 1], ab[2] = vb[DV_ANG + 2];
  }
}

/* w_j = b_j + J_j dv. */
BGS_INLINE void block_velocity(const clt_relaxed_contact_t *ct, const double *dv, int dim, double w[3]) {
  double la[3], aa[3], ab[3];
  block_bodies(ct, dv, la, aa, ab);
  for (int k = 0; k < 3; k++) {
    const double(*t)[3] = (const double(*)[3])ct->rows;
    w[k] = k < dim ? ct->bias[k] + (t[0][k] * la[0] + t[1][k] * la[1] + t[2][k] * la[2]) +
                         (t[3][k] * aa[0] + t[4][k] * aa[1] + t[5][k] * aa[2]) +
                         (t[6][k] * ab[0] + t[7][k] * ab[1] + t[8][k] * ab[2])
                   : 0.0;
  }
}

/* dv += M̂⁻¹ J_jᵀ dp on both bodies. */
BGS_INLINE void block_apply(const clt_relaxed_contact_t *ct, const double *inv, double *dv, int dim,
                            const double dp[3]) {
  double lin[3], ang[3];
  double p0 = dp[0], p1 = dp[1], p2 = dim == 3 ? dp[2] : 0.0;
  const double(*t)[3] = (const double(*)[3])ct->rows;
  for (int i = 0; i < 3; i++) lin[i] = p0 * t[i][0] + p1 * t[i][1] + p2 * t[i][2];
  if (ct->a >= 0) {
    double *v = dv + DV_STRIDE * (size_t)ct->a;
    const double *im = inv + DV_STRIDE * (size_t)ct->a;
    for (int i = 0; i < 3; i++) ang[i] = p0 * t[3 + i][0] + p1 * t[3 + i][1] + p2 * t[3 + i][2];
    for (int i = 0; i < 3; i++) {
      v[i] -= im[0] * lin[i];
      v[DV_ANG + i] += im[DV_ANG + i] * ang[i];
    }
  }
  if (ct->b >= 0) {
    double *v = dv + DV_STRIDE * (size_t)ct->b;
    const double *im = inv + DV_STRIDE * (size_t)ct->b;
    for (int i = 0; i < 3; i++) ang[i] = p0 * t[6 + i][0] + p1 * t[6 + i][1] + p2 * t[6 + i][2];
    for (int i = 0; i < 3; i++) {
      v[i] += im[0] * lin[i];
      v[DV_ANG + i] += im[DV_ANG + i] * ang[i];
    }
  }
}

/* block_apply of a 3D block with the body updates as 4-lane vectors (lane i = component i, the
 * fourth lane dv's 1/m or 1/J slot, DV_INV_MASS / DV_INV_INERTIA: it gets a finite factor times 0 and
 * stays as it is): the same operations per component. */
BGS_INLINE void block_apply3(const clt_relaxed_contact_t *ct, const double *inv, double *dv, const double dp[3]) {
  double p0 = dp[0], p1 = dp[1], p2 = dp[2];
  const double(*t)[3] = (const double(*)[3])ct->rows;
  v4d lin = {p0 * t[0][0] + p1 * t[0][1] + p2 * t[0][2], p0 * t[1][0] + p1 * t[1][1] + p2 * t[1][2],
             p0 * t[2][0] + p1 * t[2][1] + p2 * t[2][2], 0.0};
  if (ct->a >= 0) {
    double *v = dv + DV_STRIDE * (size_t)ct->a;
    const double *im = inv + DV_STRIDE * (size_t)ct->a;
    v4d ang = {p0 * t[3][0] + p1 * t[3][1] + p2 * t[3][2], p0 * t[4][0] + p1 * t[4][1] + p2 * t[4][2],
               p0 * t[5][0] + p1 * t[5][1] + p2 * t[5][2], 0.0};
    st4(v, ld4(v) - im[0] * lin);
    st4(v + DV_ANG, ld4(v + DV_ANG) + ld4(im + DV_ANG) * ang);
  }
  if (ct->b >= 0) {
    double *v = dv + DV_STRIDE * (size_t)ct->b;
    const double *im = inv + DV_STRIDE * (size_t)ct->b;
    v4d ang = {p0 * t[6][0] + p1 * t[6][1] + p2 * t[6][2], p0 * t[7][0] + p1 * t[7][1] + p2 * t[7][2],
               p0 * t[8][0] + p1 * t[8][1] + p2 * t[8][2], 0.0};
    st4(v, ld4(v) + im[0] * lin);
    st4(v + DV_ANG, ld4(v + DV_ANG) + ld4(im + DV_ANG) * ang);
  }
}

/* w of a 3D block, four lanes at a time (lane k = row k; the fourth lane is not used). */
BGS_INLINE void block_velocity3(const clt_relaxed_contact_t *ct, const double *dv, double w[3]) {
  double la[3], aa[3], ab[3];
  block_bodies(ct, dv, la, aa, ab);
  const double(*t)[3] = (const double(*)[3])ct->rows;
  v4d d = ld4(t[0]) * la[0] + ld4(t[1]) * la[1] + ld4(t[2]) * la[2];
  v4d ga = ld4(t[3]) * aa[0] + ld4(t[4]) * aa[1] + ld4(t[5]) * aa[2];
  v4d gb = ld4(t[6]) * ab[0] + ld4(t[7]) * ab[1] + ld4(t[8]) * ab[2];
  v4d r = ld4(ct->bias) + d + ga + gb;
  w[0] = r[0];
  w[1] = r[1];
  w[2] = r[2];
}

/* The sphere layout's rows: n at [0, 3), t1 at [3, 6), the lever arms' lengths r_a and r_b; t2 is
 * n × t1 (clt_v3_basis), made where it is read: the same bits as a stored copy, 24 bytes a record
 * less. */
#define SPHERE_RA 6
#define SPHERE_RB 7
BGS_INLINE void sphere_t2(const clt_relaxed_contact_t *ct, double t2[3]) { clt_v3_cross(t2, ct->rows, ct->rows + 3); }

/* The sphere layout (clt_relaxed_contact_t): w of a block whose rows are n, t1, t2 with the lever
 * arms r_a n, r_b n. With q = r_b ω_b − r_a ω_a (world frame):
 *     w_N = b_N + n·Δv,  w_T1 = b_T1 + t1·Δv + t2·q,  w_T2 = b_T2 + t2·Δv − t1·q,  Δv = v_b − v_a. */
BGS_INLINE void sphere_velocity(const clt_relaxed_contact_t *ct, const double *dv, const double t2[3], double w[3]) {
  const double *n = ct->rows, *t1 = ct->rows + 3;
  double ra = ct->rows[SPHERE_RA], rb = ct->rows[SPHERE_RB];
  double la[3] = {0.0, 0.0, 0.0}, q[3] = {0.0, 0.0, 0.0};
  if (ct->a >= 0) {
    const double *va = dv + DV_STRIDE * (size_t)ct->a;
    for (int i = 0; i < 3; i++) la[i] = -va[i], q[i] = -(ra * va[DV_ANG + i]);
  }
  if (ct->b >= 0) {
    const double *vb = dv + DV_STRIDE * (size_t)ct->b;
    for (int i = 0; i < 3; i++) la[i] += vb[i], q[i] += rb * vb[DV_ANG + i];
  }
  w[0] = ct->bias[0] + (n[0] * la[0] + n[1] * la[1] + n[2] * la[2]);
  w[1] = ct->bias[1] + (t1[0] * la[0] + t1[1] * la[1] + t1[2] * la[2]) + (t2[0] * q[0] + t2[1] * q[1] + t2[2] * q[2]);
  w[2] = ct->bias[2] + (t2[0] * la[0] + t2[1] * la[1] + t2[2] * la[2]) - (t1[0] * q[0] + t1[1] * q[1] + t1[2] * q[2]);
}

/* dv += M̂⁻¹ J_jᵀ dp in the sphere layout: the force F = dp_N n + dp_T1 t1 + dp_T2 t2 and the
 * torque direction g = dp_T1 t2 − dp_T2 t1: v_a −= F/m_a, ω_a −= r_a g/I_a, v_b += F/m_b,
 * ω_b += r_b g/I_b (world frame, isotropic inertia), as 4-lane vectors (the fourth lane of F and g 0,
 * so dv's 1/m and 1/J lanes stay as they are). */
BGS_INLINE void sphere_apply(const clt_relaxed_contact_t *ct, double *dv, const double t2[3], const double dp[3]) {
  const double *n = ct->rows, *t1 = ct->rows + 3;
  double p0 = dp[0], p1 = dp[1], p2 = dp[2];
  v4d f = {p0 * n[0] + p1 * t1[0] + p2 * t2[0], p0 * n[1] + p1 * t1[1] + p2 * t2[1],
           p0 * n[2] + p1 * t1[2] + p2 * t2[2], 0.0};
  v4d g = {p1 * t2[0] - p2 * t1[0], p1 * t2[1] - p2 * t1[1], p1 * t2[2] - p2 * t1[2], 0.0};
  if (ct->a >= 0) {
    double *v = dv + DV_STRIDE * (size_t)ct->a;
    st4(v, ld4(v) - v[DV_INV_MASS] * f);
    st4(v + DV_ANG, ld4(v + DV_ANG) - (v[DV_INV_INERTIA] * ct->rows[SPHERE_RA]) * g);
  }
  if (ct->b >= 0) {
    double *v = dv + DV_STRIDE * (size_t)ct->b;
    st4(v, ld4(v) + v[DV_INV_MASS] * f);
    st4(v + DV_ANG, ld4(v + DV_ANG) + (v[DV_INV_INERTIA] * ct->rows[SPHERE_RB]) * g);
  }
}

/* μ‖w_T‖: the De Saxcé shift of w_N under Coulomb's law (s = 0; w̃ = (w_N + μ‖w_T‖, w_T)). */
BGS_INLINE double desaxce_shift(const clt_relaxed_contact_t *ct, const double w[3], int dim) {
  return ct->mu * sqrt(w[1] * w[1] + (dim == 3 ? w[2] * w[2] : 0.0));
}

/* ‖P − Π_K(P − w)‖∞ of one block; with s = 0 (k->coulomb) the De Saxcé map ‖P − Π_K(P − w̃)‖∞ with
 * w̃ = (w_N + μ‖w_T‖, w_T): zero exactly where P ∈ K, w_N ≥ 0, and (w_N > 0 ⇒ P = 0), (P_N > 0 ⇒
 * w_N = 0 and P_T = −μ P_N w_T/‖w_T‖ where w_T ≠ 0): Coulomb's law. */
BGS_INLINE double block_residual(const clt_relaxed_contact_t *ct, const cone_t *k, const double w[3], int dim,
                                 int circ) {
  double shift = k->coulomb ? desaxce_shift(ct, w, dim) : 0.0;
  double s[3] = {ct->x[0] - (w[0] + shift), ct->x[1] - w[1], dim == 3 ? ct->x[2] - w[2] : 0.0};
  project_k(k, ct->mu, s, dim, circ);
  double r = 0.0;
  for (int i = 0; i < dim; i++) {
    double e = fabs(ct->x[i] - s[i]);
    if (e > r) r = e;
  }
  return r;
}

/* y = Π^D(t), the D-metric projection onto the block's cone (D = σ diag(a_N, a_T, a_T)): a point of
 * the cone is its own projection (tested in y-space: the cone is the same set), otherwise the
 * Euclidean projection in the scaled coordinates (√a_N y_N, √a_T y_T) onto the cone of
 * μ' = μ √(a_T / a_N). */
BGS_INLINE void project_metric(const clt_relaxed_contact_t *ct, const cone_t *k, double y[3], int dim, int circ) {
  if (circ) {
    double tt = y[1] * y[1] + (dim == 3 ? y[2] * y[2] : 0.0);
    if (y[0] >= 0.0 && tt <= ct->mu * ct->mu * y[0] * y[0]) return;
  }
  double s[3] = {ct->sqrt_n * y[0], ct->sqrt_t * y[1], dim == 3 ? ct->sqrt_t * y[2] : 0.0};
  project_k(k, ct->mu_scaled, s, dim, circ);
  y[0] = s[0] * ct->inv_sqrt_n;
  y[1] = s[1] * ct->inv_sqrt_t;
  y[2] = dim == 3 ? s[2] * ct->inv_sqrt_t : 0.0;
}

/* Visits one block: the local solve, then dv. Returns ‖D ΔP‖∞ (a velocity: |w| where the block
 * moves freely, 0 where it is already optimal), the sweep's cheap convergence measure. */
BGS_INLINE double block_update(clt_relaxed_contact_t *ct, const double *A, const cone_t *k, const double *inv,
                               double *dv, double omega, int dim, int circ, bool vec, bool sphere) {
  double w[3] = {0.0, 0.0, 0.0}, t2[3];
  if (sphere) {
    sphere_t2(ct, t2);
    sphere_velocity(ct, dv, t2, w);
  } else if (vec)
    block_velocity3(ct, dv, w);
  else
    block_velocity(ct, dv, dim, w);
  double x0[3] = {ct->x[0], ct->x[1], ct->x[2]};
  double y[3] = {x0[0] - w[0] * ct->inv_dn, x0[1] - w[1] * ct->inv_dt, dim == 3 ? x0[2] - w[2] * ct->inv_dt : 0.0};
  if (k->coulomb && ct->exact && circ) {
    /* s = 0 with A_jj = diag(a_N, a_T, a_T) (σ = 1): Coulomb's local problem in closed form. y is
     * the sticking impulse; if it pulls, the contact opens (P = 0); if it leaves the cone, the
     * contact slides with w_N = 0, so P_N stays and P_T is scaled back onto the cone along itself
     * (opposite the slip, which is parallel to the free slip because A_TT is a multiple of I). */
    if (!(y[0] > 0.0))
      y[0] = y[1] = y[2] = 0.0;
    else {
      double tn = sqrt(y[1] * y[1] + (dim == 3 ? y[2] * y[2] : 0.0));
      if (tn > ct->mu * y[0]) {
        double f = ct->mu * y[0] / tn;
        y[1] *= f;
        y[2] *= f;
      }
    }
  } else if (k->coulomb) { /* s = 0, other blocks: the De Saxcé step Π^D(x0 − D⁻¹ w̃) */
    y[0] -= desaxce_shift(ct, w, dim) * ct->inv_dn;
    project_metric(ct, k, y, dim, circ);
  } else
    project_metric(ct, k, y, dim, circ);
  if (!ct->exact) { /* more D-metric steps on the local problem ½ yᵀA y + (w − A x0)ᵀ y */
    double first = 0.0;
    for (int it = 1; it < RELAXED_INNER; it++) {
      double d[3] = {y[0] - x0[0], y[1] - x0[1], y[2] - x0[2]};
      double g[3] = {w[0] + A[0] * d[0] + A[1] * d[1] + A[2] * d[2], w[1] + A[1] * d[0] + A[3] * d[1] + A[4] * d[2],
                     dim == 3 ? w[2] + A[2] * d[0] + A[4] * d[1] + A[5] * d[2] : 0.0};
      if (k->coulomb) g[0] += desaxce_shift(ct, g, dim); /* w̃ */
      double yn[3] = {y[0] - g[0] * ct->inv_dn, y[1] - g[1] * ct->inv_dt, dim == 3 ? y[2] - g[2] * ct->inv_dt : 0.0};
      project_metric(ct, k, yn, dim, circ);
      double change = fabs(yn[0] - y[0]) * ct->dn + (fabs(yn[1] - y[1]) + fabs(yn[2] - y[2])) * ct->dt;
      clt_v3_copy(y, yn);
      if (it == 1) first = change;
      if (!(change > 1e-3 * first)) break;
    }
  }
  if (omega != 1.0) { /* over-relaxation: x0 + ω (y − x0), back onto the cone in the D-metric */
    for (int i = 0; i < 3; i++) y[i] = x0[i] + omega * (y[i] - x0[i]);
    project_metric(ct, k, y, dim, circ);
  }
  double dp[3] = {y[0] - x0[0], y[1] - x0[1], y[2] - x0[2]};
  double res = fabs(dp[0]) * ct->dn;
  double rt = fabs(dp[1]) * ct->dt;
  if (rt > res) res = rt;
  rt = fabs(dp[2]) * ct->dt;
  if (rt > res) res = rt;
  if (dp[0] != 0.0 || dp[1] != 0.0 || dp[2] != 0.0) {
    if (sphere)
      sphere_apply(ct, dv, t2, dp);
    else if (vec)
      block_apply3(ct, inv, dv, dp);
    else
      block_apply(ct, inv, dv, dim, dp);
    clt_v3_copy(ct->x, y);
  }
  return res;
}

/* ---------------------------------------------------------------------------------------------
 * Workspace */

static bool reserve(clt_relaxed_work_t *r, int contacts, int bodies, int joints) {
  if (contacts > r->contact_capacity) {
    int c2 = r->contact_capacity, c3 = c2, c4 = c2, c5 = c2, c6 = c2, c7 = c2, c8 = c2, c9 = c2;
    if (!clt_step_work_grow((void **)&r->delta, &c2, contacts, sizeof *r->delta) ||
        !clt_step_work_grow((void **)&r->colour, &c3, contacts, sizeof *r->colour) ||
        !clt_step_work_grow((void **)&r->order, &c4, contacts, sizeof *r->order) ||
        !clt_step_work_grow((void **)&r->ends, &c5, contacts, 2 * sizeof *r->ends) ||
        !clt_step_work_grow((void **)&r->hot, &c6, contacts, sizeof *r->hot) ||
        !clt_step_work_grow((void **)&r->block_A, &c7, contacts, 6 * sizeof *r->block_A) ||
        !clt_step_work_grow((void **)&r->hot_list, &c8, contacts, sizeof *r->hot_list) ||
        !clt_step_work_grow((void **)&r->z_slot, &c9, contacts, CLT_Z_BRACKET * sizeof *r->z_slot))
      return false;
    r->contact_capacity = c2;
  }
  if (bodies > r->body_capacity) {
    int c1 = r->body_capacity, c2 = c1, c3 = c1, c4 = c1, c11 = c1, c19 = c1, c20 = c1, c21 = c1;
    if (!clt_step_work_grow((void **)&r->dv, &c1, DV_STRIDE * bodies, sizeof *r->dv) ||
        !clt_step_work_grow((void **)&r->inv, &c2, DV_STRIDE * bodies, sizeof *r->inv) ||
        !clt_step_work_grow((void **)&r->dyn, &c3, bodies, sizeof *r->dyn) ||
        !clt_step_work_grow((void **)&r->mask, &c4, bodies, sizeof *r->mask) ||
        !clt_sweep_reserve(r->sweep, bodies) ||
        !clt_step_work_grow((void **)&r->rot, &c11, 9 * bodies, sizeof *r->rot) ||
        !clt_step_work_grow((void **)&r->demand, &c19, 6 * bodies, sizeof *r->demand) ||
        !clt_step_work_grow((void **)&r->demanded, &c20, bodies, sizeof *r->demanded) ||
        !clt_step_work_grow((void **)&r->solved, &c21, 6 * bodies, sizeof *r->solved))
      return false;
    r->body_capacity = bodies;
  }
  if (joints > r->joint_capacity) {
    int c1 = r->joint_capacity, c2 = c1, c3 = c1;
    if (!clt_step_work_grow((void **)&r->joint_x, &c1, joints, sizeof(double)) ||
        !clt_step_work_grow((void **)&r->joint_diag, &c2, joints, sizeof(double)) ||
        !clt_step_work_grow((void **)&r->joint_bias, &c3, joints, sizeof(double)))
      return false;
    r->joint_capacity = c1;
  }
  int threads = 1; /* sweep_list's kept counts and colour_sweep's cursors: per colour and thread */
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  int64_t need = (int64_t)(RELAXED_MAX_COLOURS + 1) * threads * RELAXED_CURSOR_STRIDE;
  if (need > r->share_kept_capacity) {
    int cap = r->share_kept_capacity;
    if (need > INT32_MAX || !clt_step_work_grow((void **)&r->share_kept, &cap, (int)need, sizeof *r->share_kept))
      return false;
    r->share_kept_capacity = cap;
  }
  /* sweep_list's runs: at most one a share beyond the full runs of the list */
  int64_t runs = (int64_t)r->contact_capacity / RELAXED_LIST_RUN + (int64_t)(RELAXED_MAX_COLOURS + 1) * threads + 1;
  if (runs > r->run_kept_capacity) {
    int cap = r->run_kept_capacity;
    if (runs > INT32_MAX || !clt_step_work_grow((void **)&r->run_kept, &cap, (int)runs, sizeof *r->run_kept))
      return false;
    r->run_kept_capacity = cap;
  }
  return true;
}

/* Room for nc records of `stride` bytes (clt_relaxed_contact_t), in capacities that double. */
static bool reserve_records(clt_relaxed_work_t *r, int nc, size_t stride) {
  r->contact_stride = stride;
  size_t need = (size_t)(nc > 0 ? nc : 1) * stride;
  if (need <= r->contact_bytes) return true;
  size_t cap = r->contact_bytes > 0 ? r->contact_bytes : 16 * stride;
  while (cap < need) cap *= 2;
  void *q = realloc(r->contacts, cap);
  if (!q) return false;
  r->contacts = q;
  r->contact_bytes = cap;
  return true;
}

/* Grows the per-contact and per-body buffers (relaxed.h). */
bool clt_relaxed_reserve(clt_relaxed_work_t *r, int contacts, int bodies) { return reserve(r, contacts, bodies, 0); }

/* ---------------------------------------------------------------------------------------------
 * Building the blocks */

/* A block's three rows (directions dir, angular parts ang_a and ang_b), stored transposed: the
 * block's three velocities are then one 4-lane expression per column in the sweep. */
static void store_rows(clt_relaxed_contact_t *ct, const double dir[3][3], const double ang_a[3][3],
                       const double ang_b[3][3]) {
  double(*jt)[3] = (double(*)[3])ct->rows;
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      jt[i][k] = dir[k][i];
      jt[3 + i][k] = ang_a[k][i];
      jt[6 + i][k] = ang_b[k][i];
    }
  ct->rows[27] = 0.0; /* the fourth double the kernel reads from jt[8] */
}

/* Angular parts sign · Rᵀ(ρ × d_k) of body `body` at the world point p (SPEC.md §0). */
static void side_rows(const clt_world_t *world, int body, const double p[3], double (*dirs)[3], int dim, double sign,
                      double (*ang)[3]) {
  for (int k = 0; k < 3; k++) clt_v3_set(ang[k], 0.0, 0.0, 0.0);
  if (body < 0) return;
  const clt_body_state_t *s = &world->states[body];
  double rho[3];
  clt_v3_sub(rho, p, s->position);
  if (world->dimension == 2) {
    for (int k = 0; k < dim; k++) ang[k][0] = sign * (rho[0] * dirs[k][1] - rho[1] * dirs[k][0]);
    return;
  }
  double R[3][3];
  clt_q_to_m3(R, s->orientation);
  for (int k = 0; k < dim; k++) {
    double c[3], cb[3];
    clt_v3_cross(c, rho, dirs[k]);
    clt_m3_mulv_t(cb, R, c);
    clt_v3_scale(ang[k], cb, sign);
  }
}

static double side_dot6(double sign, const double d[3], const double ang[3], const double v[6]) {
  return sign * (d[0] * v[0] + d[1] * v[1] + d[2] * v[2]) + ang[0] * v[3] + ang[1] * v[4] + ang[2] * v[5];
}

static void build_block(const clt_world_t *world, const clt_step_work_t *w, clt_relaxed_work_t *r, int j,
                        clt_relaxed_contact_t *ct, double *block_A, int dim) {
  const clt_contact_t *c = &w->contacts[j];
  ct->index = j;
  ct->a = c->body_a >= 0 ? r->dyn[c->body_a] : -1;
  ct->b = c->body_b >= 0 ? r->dyn[c->body_b] : -1;
  double t1[3], t2[3], dir[3][3], ang_a[3][3], ang_b[3][3];
  clt_contact_tangents(world, c->normal, t1, t2);
  clt_v3_copy(dir[0], c->normal);
  clt_v3_copy(dir[1], t1);
  if (dim == 3)
    clt_v3_copy(dir[2], t2);
  else
    clt_v3_set(dir[2], 0.0, 0.0, 0.0);
  side_rows(world, c->body_a, c->point_a, dir, dim, -1.0, ang_a);
  side_rows(world, c->body_b, c->point_b, dir, dim, 1.0, ang_b);
  store_rows(ct, dir, ang_a, ang_b);
  /* b = J v_free (kinematic bodies with their prescribed velocity) + Δ on the normal row */
  double va[6], vb[6];
  clt_body_velocity6(world, c->body_a, va);
  clt_body_velocity6(world, c->body_b, vb);
  for (int k = 0; k < 3; k++) {
    ct->bias[k] = k < dim ? side_dot6(-1.0, dir[k], ang_a[k], va) + side_dot6(1.0, dir[k], ang_b[k], vb) : 0.0;
    ct->x[k] = 0.0;
  }
  ct->bias[0] += r->delta[j];
  /* A_jj = Σ_sides J M̂⁻¹ Jᵀ */
  double A[3][3] = {{0.0}};
  for (int side = 0; side < 2; side++) {
    int body = side == 0 ? ct->a : ct->b;
    if (body < 0) continue;
    const double *im = r->inv + DV_STRIDE * (size_t)body;
    double(*ang)[3] = side == 0 ? ang_a : ang_b;
    for (int p = 0; p < dim; p++)
      for (int q = 0; q < dim; q++)
        A[p][q] += im[0] * clt_v3_dot(dir[p], dir[q]) + im[DV_ANG] * ang[p][0] * ang[q][0] +
                   im[DV_ANG + 1] * ang[p][1] * ang[q][1] + im[DV_ANG + 2] * ang[p][2] * ang[q][2];
  }
  double an = A[0][0], at = dim == 3 ? 0.5 * (A[1][1] + A[2][2]) : A[1][1];
  /* a block between two non-dynamic bodies never gets here (collide skips such pairs); guard */
  if (!(an > 0.0)) an = 1.0;
  if (!(at > 0.0)) at = an;
  double off = fabs(A[0][1]) + fabs(A[0][2]) + fabs(A[1][2]) + (dim == 3 ? fabs(A[1][1] - A[2][2]) : 0.0);
  ct->exact = off <= 1e-12 * (an + at);
  if (!ct->exact) { /* only the inexact blocks read A_jj (block_update): an exact block leaves its
                       slot untouched, and a pile of spheres never maps these pages */
    block_A[0] = A[0][0];
    block_A[1] = A[0][1];
    block_A[2] = A[0][2];
    block_A[3] = A[1][1];
    block_A[4] = A[1][2];
    block_A[5] = A[2][2];
  }
  ct->sqrt_n = sqrt(an);
  ct->sqrt_t = sqrt(at);
  ct->mu = c->friction;
  double sigma_jj = 1.0;
  if (!ct->exact) {
    double d[3] = {an, at, at}, sigma = 0.0;
    for (int p = 0; p < dim; p++) {
      double row = 0.0;
      for (int q = 0; q < dim; q++) row += fabs(A[p][q]) / sqrt(d[p] * d[q]);
      sigma = fmax(sigma, row);
    }
    sigma_jj = sigma > 0.0 ? sigma : 1.0;
  }
  ct->mu_scaled = ct->mu * ct->sqrt_t / ct->sqrt_n;
  ct->dn = sigma_jj * an;
  ct->dt = sigma_jj * at;
  ct->inv_dn = 1.0 / ct->dn;
  ct->inv_dt = 1.0 / ct->dt;
  ct->inv_sqrt_n = 1.0 / ct->sqrt_n;
  ct->inv_sqrt_t = 1.0 / ct->sqrt_t;
}

/* Angular parts of side_rows in 3D with the body's rotation matrix R from r->rot (built once per
 * solve): sign · Rᵀ(ρ × d_k), the same operations in the same order (Rᵀc as R's rows scaled by c's
 * components and summed, lane by lane). */
BGS_INLINE void side_rows3(const clt_world_t *world, const double *R, int body, const double p[3],
                           double (*dirs)[3], double sign, double (*ang)[3]) {
  if (body < 0) {
    for (int k = 0; k < 3; k++) clt_v3_set(ang[k], 0.0, 0.0, 0.0);
    return;
  }
  const double *x = world->states[body].position;
  double rho[3] = {p[0] - x[0], p[1] - x[1], p[2] - x[2]};
  for (int k = 0; k < 3; k++) {
    double c[3];
    clt_v3_cross(c, rho, dirs[k]);
    /* clt_m3_mulv_t: out_i = R_0i c_0 + R_1i c_1 + R_2i c_2 */
    for (int i = 0; i < 3; i++) ang[k][i] = (R[i] * c[0] + R[3 + i] * c[1] + R[6 + i] * c[2]) * sign;
  }
}

/* The velocity clt_body_velocity6 gives (static: 0; kinematic: its step velocity), read directly
 * for a dynamic body. */
BGS_INLINE void body_velocity6(const clt_world_t *world, int body, double v[6]) {
  if (body >= 0 && world->bodies[body].type == CLT_BODY_DYNAMIC) {
    const clt_body_state_t *s = &world->states[body];
    v[0] = s->velocity[0], v[1] = s->velocity[1], v[2] = s->velocity[2];
    v[3] = s->angular_velocity[0], v[4] = s->angular_velocity[1], v[5] = s->angular_velocity[2];
    return;
  }
  clt_body_velocity6(world, body, v);
}

/* build_block in 3D (the piles' case), the same numbers with less work per contact: the rotation
 * matrices come from r->rot, the upper triangle of A_jj only unless the block is not exact (then
 * build_block's full A for σ: its A[q][p] need not have A[p][q]'s bits). */
static void build_block3(const clt_world_t *world, const clt_step_work_t *w, clt_relaxed_work_t *r, int j,
                         clt_relaxed_contact_t *ct, double *block_A) {
  const clt_contact_t *c = &w->contacts[j];
  ct->index = j;
  ct->a = c->body_a >= 0 ? r->dyn[c->body_a] : -1;
  ct->b = c->body_b >= 0 ? r->dyn[c->body_b] : -1;
  double dir[3][3], ang_a[3][3], ang_b[3][3];
  clt_v3_copy(dir[0], c->normal);
  clt_v3_basis(c->normal, dir[1], dir[2]); /* clt_contact_tangents in 3D */
  side_rows3(world, r->rot + 9 * (size_t)(c->body_a >= 0 ? c->body_a : 0), c->body_a, c->point_a, dir, -1.0, ang_a);
  side_rows3(world, r->rot + 9 * (size_t)(c->body_b >= 0 ? c->body_b : 0), c->body_b, c->point_b, dir, 1.0, ang_b);
  store_rows(ct, dir, ang_a, ang_b);
  double va[6], vb[6];
  body_velocity6(world, c->body_a, va);
  body_velocity6(world, c->body_b, vb);
  for (int k = 0; k < 3; k++) {
    ct->bias[k] = side_dot6(-1.0, dir[k], ang_a[k], va) + side_dot6(1.0, dir[k], ang_b[k], vb);
    ct->x[k] = 0.0;
  }
  ct->bias[0] += r->delta[j];
  static const int P[6] = {0, 0, 0, 1, 1, 2}, Q[6] = {0, 1, 2, 1, 2, 2};
  double A[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}; /* 00 01 02 11 12 22 */
  for (int side = 0; side < 2; side++) {
    int body = side == 0 ? ct->a : ct->b;
    if (body < 0) continue;
    const double *im = r->inv + DV_STRIDE * (size_t)body;
    double(*ang)[3] = side == 0 ? ang_a : ang_b;
    for (int e = 0; e < 6; e++) {
      int p = P[e], q = Q[e];
      A[e] += im[0] * clt_v3_dot(dir[p], dir[q]) + im[DV_ANG] * ang[p][0] * ang[q][0] +
              im[DV_ANG + 1] * ang[p][1] * ang[q][1] + im[DV_ANG + 2] * ang[p][2] * ang[q][2];
    }
  }
  double an = A[0], at = 0.5 * (A[3] + A[5]);
  if (!(an > 0.0)) an = 1.0;
  if (!(at > 0.0)) at = an;
  double off = fabs(A[1]) + fabs(A[2]) + fabs(A[4]) + fabs(A[3] - A[5]);
  ct->exact = off <= 1e-12 * (an + at);
  if (!ct->exact) { /* σ reads the lower triangle too: the general builder (the same numbers, and
                       it stores A_jj) */
    build_block(world, w, r, j, ct, block_A, 3);
    return;
  }
  ct->sqrt_n = sqrt(an);
  ct->sqrt_t = sqrt(at);
  ct->mu = c->friction;
  ct->mu_scaled = ct->mu * ct->sqrt_t / ct->sqrt_n;
  ct->dn = 1.0 * an;
  ct->dt = 1.0 * at;
  ct->inv_dn = 1.0 / ct->dn;
  ct->inv_dt = 1.0 / ct->dt;
  ct->inv_sqrt_n = 1.0 / ct->sqrt_n;
  ct->inv_sqrt_t = 1.0 / ct->sqrt_t;
}

/* The sphere layout's side of a contact (clt_relaxed_contact_t): a static body (no velocity), or a
 * dynamic one with isotropic inertia whose lever arm ρ = p − x lies along the normal (a sphere
 * centred on its body: |ρ − (ρ·n) n| ≤ 1e-12 |ρ|); *lever = ρ·n (0 for a static side). A kinematic
 * body or any other dynamic one needs the general layout. */
static bool sphere_side(const clt_world_t *world, int body, const double p[3], const double n[3], double *lever) {
  *lever = 0.0;
  if (body < 0) return true;
  const clt_body_rec_t *b = &world->bodies[body];
  if (b->type == CLT_BODY_STATIC) return true;
  if (b->type != CLT_BODY_DYNAMIC) return false;
  if (b->inv_inertia[0] != b->inv_inertia[1] || b->inv_inertia[0] != b->inv_inertia[2]) return false;
  const double *x = world->states[body].position;
  double rho[3] = {p[0] - x[0], p[1] - x[1], p[2] - x[2]};
  double along = clt_v3_dot(rho, n);
  double off[3] = {rho[0] - along * n[0], rho[1] - along * n[1], rho[2] - along * n[2]};
  if (!(clt_v3_dot(off, off) <= 1e-24 * clt_v3_dot(rho, rho))) return false;
  *lever = along;
  return true;
}

static bool sphere_contact(const clt_world_t *world, const clt_contact_t *c) {
  double ra, rb;
  return sphere_side(world, c->body_a, c->point_a, c->normal, &ra) &&
         sphere_side(world, c->body_b, c->point_b, c->normal, &rb);
}

/* A block in the sphere layout: rows n, t1, t2 (clt_contact_tangents in 3D), r_a, r_b; b from the
 * start-of-step velocities with the body-frame ω rotated into the world frame; A_jj =
 * diag(a_N, a_T, a_T) with a_N = Σ 1/m, a_T = Σ 1/m + r²/I over the dynamic sides (exact). */
static void build_sphere(const clt_world_t *world, clt_relaxed_work_t *r, int j, const clt_contact_t *c, double delta,
                         clt_relaxed_contact_t *ct) {
  ct->index = j;
  ct->a = c->body_a >= 0 ? r->dyn[c->body_a] : -1;
  ct->b = c->body_b >= 0 ? r->dyn[c->body_b] : -1;
  double *n = ct->rows, *t1 = ct->rows + 3, t2[3];
  clt_v3_copy(n, c->normal);
  clt_v3_basis(c->normal, t1, t2); /* clt_contact_tangents in 3D (t2 = n × t1: sphere_t2) */
  double ra, rb;
  sphere_side(world, c->body_a, c->point_a, c->normal, &ra);
  sphere_side(world, c->body_b, c->point_b, c->normal, &rb);
  ct->rows[SPHERE_RA] = ra;
  ct->rows[SPHERE_RB] = rb;
  double la[3] = {0.0, 0.0, 0.0}, q[3] = {0.0, 0.0, 0.0};
  for (int side = 0; side < 2; side++) {
    int body = side == 0 ? c->body_a : c->body_b;
    if (body < 0) continue;
    double v[6], R[9];
    body_velocity6(world, body, v);
    clt_q_to_m3((double(*)[3])R, world->states[body].orientation);
    double sg = side == 0 ? -1.0 : 1.0, lever = side == 0 ? ra : rb;
    for (int i = 0; i < 3; i++) {
      double om = R[3 * i] * v[3] + R[3 * i + 1] * v[4] + R[3 * i + 2] * v[5]; /* world-frame ω */
      la[i] += sg * v[i];
      q[i] += sg * (lever * om);
    }
  }
  ct->bias[0] = clt_v3_dot(n, la) + delta;
  ct->bias[1] = clt_v3_dot(t1, la) + clt_v3_dot(t2, q);
  ct->bias[2] = clt_v3_dot(t2, la) - clt_v3_dot(t1, q);
  ct->x[0] = ct->x[1] = ct->x[2] = 0.0;
  double an = 0.0, at1 = 0.0, at2 = 0.0;
  for (int side = 0; side < 2; side++) {
    int body = side == 0 ? ct->a : ct->b;
    if (body < 0) continue;
    const double *im = r->dv + DV_STRIDE * (size_t)body; /* (the sphere layout's lanes) */
    double lever = side == 0 ? ra : rb, rot = im[DV_INV_INERTIA] * lever * lever;
    an += im[DV_INV_MASS] * clt_v3_dot(n, n);
    at1 += im[DV_INV_MASS] * clt_v3_dot(t1, t1) + rot * clt_v3_dot(t2, t2);
    at2 += im[DV_INV_MASS] * clt_v3_dot(t2, t2) + rot * clt_v3_dot(t1, t1);
  }
  double at = 0.5 * (at1 + at2);
  if (!(an > 0.0)) an = 1.0;
  if (!(at > 0.0)) at = an;
  ct->exact = 1;
  ct->sqrt_n = sqrt(an);
  ct->sqrt_t = sqrt(at);
  ct->mu = c->friction;
  ct->mu_scaled = ct->mu * ct->sqrt_t / ct->sqrt_n;
  ct->dn = an;
  ct->dt = at;
  ct->inv_dn = 1.0 / ct->dn;
  ct->inv_dt = 1.0 / ct->dt;
  ct->inv_sqrt_n = 1.0 / ct->sqrt_n;
  ct->inv_sqrt_t = 1.0 / ct->sqrt_t;
}

/* P from the contact memory (rows.h): c_n and the tangential impulse vector, onto this step's cone. */
static void warm_find(const clt_step_work_t *w, const int key[3], double out[CLT_Z_BRACKET], int *hint) {
  /* The contacts come in the narrow phase's order, mostly the memory's key order: the entry after
   * the last one found is tried first (keys are unique: the same entry as the search finds). */
  const clt_relaxed_work_t *r = w->relaxed;
  const clt_contact_memory_t *base = r->round_warm ? r->round_memory : w->memory;
  int count = r->round_warm ? r->round_memory_count : w->memory_count;
  const clt_contact_memory_t *mem = NULL;
  int next = *hint + 1;
  if (next < count) {
    const clt_contact_memory_t *e = &base[next];
    if (e->shape_a == key[0] && e->shape_b == key[1] && e->feature == key[2]) mem = e;
  }
  if (!mem) mem = clt_find_memory_entry(base, count, key[0], key[1], key[2]);
  if (mem) *hint = (int)(mem - base);
  out[0] = mem && mem->normal_impulse > 0.0 ? mem->normal_impulse : 0.0;
  if (out[0] > 0.0) clt_v3_copy(out + 1, mem->tangent_impulse);
}

/* P of a block from what warm_find found for its contact (found[0] = 0: none). */
static void warm_block(const clt_relaxed_work_t *r, const cone_t *k, clt_relaxed_contact_t *ct, const double *found) {
  if (!(found[0] > 0.0)) return;
  const double *tangent = found + 1;
  double t1[3], t2[3];
  if (r->sphere) {
    clt_v3_copy(t1, ct->rows + 3);
    sphere_t2(ct, t2);
  } else {
    const double(*t)[3] = (const double(*)[3])ct->rows;
    clt_v3_set(t1, t[0][1], t[1][1], t[2][1]);
    clt_v3_set(t2, t[0][2], t[1][2], t[2][2]);
  }
  double s[3] = {found[0], clt_v3_dot(tangent, t1), k->dim == 3 ? clt_v3_dot(tangent, t2) : 0.0};
  project(k, ct->mu, s);
  clt_v3_copy(ct->x, s);
}

void clt_relaxed_bracket(const double *dc, const double *ds, int dimension, int m, double a1, double a2, int *k0,
                         int *k1, double *alpha, double *beta) {
  if (dimension == 2) {
    *k0 = a1 >= 0.0 ? 0 : 1;
    *k1 = *k0;
    *alpha = fabs(a1);
    *beta = 0.0;
    return;
  }
  double phi = atan2(a2, a1);
  if (phi < 0.0) phi += CLT_TWO_PI;
  int k = (int)floor(phi / (CLT_TWO_PI / (double)m));
  if (k < 0) k = 0;
  if (k >= m) k = m - 1;
  int k2 = (k + 1) % m;
  double c0, s0, c1, s1;
  if (dc && ds) {
    c0 = dc[k], s0 = ds[k], c1 = dc[k2], s1 = ds[k2];
  } else {
    double th0 = CLT_TWO_PI * (double)k / (double)m, th1 = CLT_TWO_PI * (double)k2 / (double)m;
    c0 = cos(th0), s0 = sin(th0), c1 = cos(th1), s1 = sin(th1);
  }
  double det = c0 * s1 - s0 * c1;
  double a = (a1 * s1 - a2 * c1) / det, b = (c0 * a2 - s0 * a1) / det;
  *k0 = k;
  *k1 = k2;
  *alpha = a > 0.0 ? a : 0.0;
  *beta = b > 0.0 ? b : 0.0;
}

/* ---------------------------------------------------------------------------------------------
 * Joint rows: scalar blocks with free multipliers */

/* J_side · dv of one body (the layout of DV_STRIDE). */
static double dv_dot(const double lin[3], const double ang[3], const double *v) {
  return 1.0 * (lin[0] * v[0] + lin[1] * v[1] + lin[2] * v[2]) + ang[0] * v[DV_ANG] + ang[1] * v[DV_ANG + 1] +
         ang[2] * v[DV_ANG + 2];
}

static double joint_velocity(const clt_step_work_t *w, const clt_relaxed_work_t *r, int p) {
  const clt_row_t *row = &w->rows[p];
  double s = r->joint_bias[p];
  int a = row->body_a >= 0 ? r->dyn[row->body_a] : -1, b = row->body_b >= 0 ? r->dyn[row->body_b] : -1;
  if (a >= 0) s += dv_dot(row->jac.linear_a, row->jac.angular_a, r->dv + DV_STRIDE * (size_t)a);
  if (b >= 0) s += dv_dot(row->jac.linear_b, row->jac.angular_b, r->dv + DV_STRIDE * (size_t)b);
  return s;
}

static void joint_apply(const clt_step_work_t *w, clt_relaxed_work_t *r, int p, double dx) {
  const clt_row_t *row = &w->rows[p];
  for (int side = 0; side < 2; side++) {
    int body = side == 0 ? row->body_a : row->body_b;
    int d = body >= 0 ? r->dyn[body] : -1;
    if (d < 0) continue;
    const double *lin = side == 0 ? row->jac.linear_a : row->jac.linear_b;
    const double *ang = side == 0 ? row->jac.angular_a : row->jac.angular_b;
    const double *im = r->inv + DV_STRIDE * (size_t)d;
    double *v = r->dv + DV_STRIDE * (size_t)d;
    for (int i = 0; i < 3; i++) {
      v[i] += dx * im[0] * lin[i];
      v[DV_ANG + i] += dx * im[DV_ANG + i] * ang[i];
    }
  }
}

static double joint_sweep(const clt_step_work_t *w, clt_relaxed_work_t *r, int nj) {
  double res = 0.0;
  for (int p = 0; p < nj; p++) {
    if (!(r->joint_diag[p] > 0.0)) continue;
    double wv = joint_velocity(w, r, p);
    res = fmax(res, fabs(wv));
    double dx = -wv / r->joint_diag[p];
    r->joint_x[p] += dx;
    joint_apply(w, r, p, dx);
  }
  return res;
}

/* ---------------------------------------------------------------------------------------------
 * The solve */

/* The kernel instances: generic, the piles' case (3D, circular cone) in the general layout, and
 * the same in the sphere layout (clt_relaxed_contact_t). */
enum { KERNEL_GENERIC, KERNEL_FAST, KERNEL_SPHERE };

/* One block visit with the kernel instance `kind` of the solve. */
BGS_INLINE double visit(clt_relaxed_contact_t *ct, const double *A, const cone_t *k, const double *inv, double *dv,
                        double omega, int kind) {
  if (kind == KERNEL_SPHERE) return block_update(ct, A, k, inv, dv, omega, 3, 1, true, true);
  if (kind == KERNEL_FAST) return block_update(ct, A, k, inv, dv, omega, 3, 1, true, false);
  return block_update(ct, A, k, inv, dv, omega, k->dim, cone_circ(k), false, false);
}

/* Prefetches the body slots of block i, a few visits ahead (no effect on the numbers). */
BGS_INLINE void prefetch_bodies(const clt_relaxed_work_t *r, int i) {
  const clt_relaxed_contact_t *nx = clt_relaxed_block(r, i);
  __builtin_prefetch(r->dv + DV_STRIDE * (ptrdiff_t)nx->a, 1);
  __builtin_prefetch(r->dv + DV_STRIDE * (ptrdiff_t)nx->b, 1);
}

/* Visits block i (visit with the kernel instance `kind`), marks it hot when its update exceeds
 * hot_level, counts it in *hot if so, and keeps the largest update in *res. */
BGS_INLINE void visit_marked(clt_relaxed_work_t *r, const cone_t *k, int i, double omega, int kind, double hot_level,
                             int *hot, double *res) {
  double e = visit(clt_relaxed_block(r, i), r->block_A + 6 * (size_t)i, k, r->inv, r->dv, omega, kind);
  r->hot[i] = e > hot_level;
  *hot += r->hot[i];
  if (e > *res) *res = e;
}

/* The blocks [lo, hi) of one colour in order, serially (a full sweep; the focused passes walk the
 * hot list: list_share), prefetching the bodies of the blocks ahead up to `ahead` (≥ hi: the run
 * that follows on the same thread). On
 * x86-64 GCC builds it twice, for AVX2 and for the baseline, and picks one at load time: the same
 * operations either way (4-lane vectors or pairs of 2-lane ones, no FMA), so the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static double sweep_range(clt_relaxed_work_t *r, const cone_t *k, int lo, int hi, int ahead, double omega, int kind,
                          double hot_level, int *hot_count) {
  double res = 0.0;
  int hot = 0;
  if (kind == KERNEL_SPHERE) { /* the same loop, instantiated for the common cases */
    for (int i = lo; i < hi; i++) {
      if (i + RELAXED_PREFETCH < ahead) prefetch_bodies(r, i + RELAXED_PREFETCH);
      visit_marked(r, k, i, omega, KERNEL_SPHERE, hot_level, &hot, &res);
    }
  } else if (kind == KERNEL_FAST) {
    for (int i = lo; i < hi; i++) {
      if (i + RELAXED_PREFETCH < ahead) prefetch_bodies(r, i + RELAXED_PREFETCH);
      visit_marked(r, k, i, omega, KERNEL_FAST, hot_level, &hot, &res);
    }
  } else {
    for (int i = lo; i < hi; i++) visit_marked(r, k, i, omega, KERNEL_GENERIC, hot_level, &hot, &res);
  }
  *hot_count += hot;
  return res;
}

/* The hot blocks (flag set) as a list in slot order, with each colour's span: the focused
 * passes walk it instead of scanning every flag (and can prefetch what they will visit next).
 * With `par`, each thread compacts an equal share of the slots after the shares before it; a
 * colour's span starts at the first listed slot of the colour (the list ascends). */
static void hot_list_build(clt_relaxed_work_t *r, bool par) {
  const unsigned char *flag = r->hot;
  int colours = r->colour_count, nc = r->colour_start[colours], total = 0, shares = 1;
  int counts[RELAXED_LIST_SHARES + 1] = {0};
#ifdef _OPENMP
  if (par) shares = omp_get_max_threads() < RELAXED_LIST_SHARES ? omp_get_max_threads() : RELAXED_LIST_SHARES;
#endif
  (void)par;
#ifdef _OPENMP
#pragma omp parallel num_threads(shares) if (shares > 1)
#endif
  {
    int t = 0, nt = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    nt = omp_get_num_threads();
#endif
    int from = (int)((int64_t)nc * t / nt), to = (int)((int64_t)nc * (t + 1) / nt), n = 0;
    for (int i = from; i < to; i++) n += flag[i] != 0;
    counts[t + 1] = n;
#ifdef _OPENMP
#pragma omp barrier
#endif
    int at = 0;
    for (int q = 0; q <= t; q++) at += counts[q];
    for (int i = from; i < to; i++)
      if (flag[i]) r->hot_list[at++] = i;
    if (t == nt - 1) total = at;
  }
  for (int c = 0; c < colours; c++) { /* the first entry ≥ the colour's first slot (the list ascends) */
    int lo = c > 0 ? r->hot_start[c - 1] : 0, hi = total;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (r->hot_list[mid] < r->colour_start[c]) lo = mid + 1;
      else hi = mid;
    }
    r->hot_start[c] = lo;
  }
  r->hot_start[colours] = total;
  r->hot_list_valid = true;
}

/* Where share t of nt equal shares of [lo, hi) starts (share nt: hi). */
static int share_start(int lo, int hi, int t, int nt) { return lo + (int)((int64_t)(hi - lo) * t / nt); }

/* A focused pass over entries [from, to) of the hot list (blocks of one colour): the blocks that a
 * scan of the colour's flags would visit, in the same order. Sets the blocks' flags; returns the
 * largest update, and moves the blocks still hot to the front of [from, to), in order (*kept of
 * them: the next pass's share of the list). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static double list_share(clt_relaxed_work_t *r, const cone_t *k, double omega, int kind, double hot_level, int from,
                         int to, int *kept) {
  double res = 0.0;
  int n = 0;
  int *list = r->hot_list;
  if (kind != KERNEL_GENERIC) {
    size_t bytes = r->contact_stride;
    for (int j = from; j < to; j++) {
      if (j + 2 * RELAXED_PREFETCH < to) { /* the block two strides ahead, then its bodies */
        const char *p = (const char *)clt_relaxed_block(r, list[j + 2 * RELAXED_PREFETCH]);
        for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(p + o, 1);
      }
      if (j + RELAXED_PREFETCH < to) prefetch_bodies(r, list[j + RELAXED_PREFETCH]);
      int i = list[j], before = n;
      if (kind == KERNEL_SPHERE)
        visit_marked(r, k, i, omega, KERNEL_SPHERE, hot_level, &n, &res);
      else
        visit_marked(r, k, i, omega, KERNEL_FAST, hot_level, &n, &res);
      if (n > before) list[from + before] = i; /* (from + before ≤ j: read already) */
    }
  } else {
    for (int j = from; j < to; j++) {
      int i = list[j], before = n;
      visit_marked(r, k, i, omega, KERNEL_GENERIC, hot_level, &n, &res);
      if (n > before) list[from + before] = i;
    }
  }
  *kept = n;
  return res;
}

/* The next run of a share of a colour (cursor: its next block or hot-list entry, end: the share's
 * end): [*from, *to), `run` entries at most; false when the share is done. */
static bool take_run(int *cursor, int end, int run, int *from, int *to) {
  int at;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
  {
    at = *cursor;
    *cursor += run;
  }
  if (at >= end) return false;
  *from = at;
  *to = end - at > run ? at + run : end;
  return true;
}

/* A focused pass over the hot list, colour by colour (list_share), serially or in parallel: each
 * colour cut into a share per thread, each share visited in runs of RELAXED_LIST_RUN entries by its
 * thread and then by any thread done with its own (as colour_sweep; a barrier between colours; the
 * overflow colour, whose blocks may share bodies, on one thread). Then the list keeps the blocks
 * that stay hot, in order: each run (each colour, serially) compacted itself, and the kept entries
 * are moved together. The same numbers either way. (A run's prefetches stop at its end: the entries
 * after it may be another thread's, being compacted. Letting a thread's first run be three
 * quarters of its share, prefetched throughout, changed nothing measurable on the 8·10³ pile
 * (list_share / sweep_range CPU 1.15 and 1.20 without, 1.15 and 1.17 with it).) */
static double sweep_list(clt_relaxed_work_t *r, const cone_t *k, bool par, double omega, int kind, double hot_level,
                         int *hot_count) {
  double res = 0.0;
  int colours = r->colour_count, nt = 1, *list = r->hot_list, out = 0;
#ifdef _OPENMP
  if (par) nt = omp_get_max_threads();
#endif
  if (nt == 1) {
    int *kept = r->share_kept; /* kept[c]: colour c's count */
    for (int c = 0; c < colours; c++) {
      double e = list_share(r, k, omega, kind, hot_level, r->hot_start[c], r->hot_start[c + 1], &kept[c]);
      if (e > res) res = e;
    }
    for (int c = 0; c < colours; c++) {
      int lo = r->hot_start[c];
      r->hot_start[c] = out;
      if (kept[c] > 0 && lo != out) memmove(list + out, list + lo, (size_t)kept[c] * sizeof *list);
      out += kept[c];
    }
    r->hot_start[colours] = out;
    *hot_count = out;
    return res;
  }
  /* per (colour, share) one cache line of share_kept: [0] the cursor, [1] the index of its first run
   * in run_kept (the kept count of each run) */
  int *line = r->share_kept, *run_kept = r->run_kept, runs = 0;
  for (int c = 0; c < colours; c++)
    for (int q = 0; q < nt; q++) {
      int *l = &line[((size_t)c * nt + q) * RELAXED_CURSOR_STRIDE];
      int from = share_start(r->hot_start[c], r->hot_start[c + 1], q, nt),
          to = share_start(r->hot_start[c], r->hot_start[c + 1], q + 1, nt);
      l[0] = from;
      l[1] = runs;
      runs += c == RELAXED_MAX_COLOURS ? (q == 0) : (to - from + RELAXED_LIST_RUN - 1) / RELAXED_LIST_RUN;
    }
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
  { /* (each thread's max over all colours, combined once at the end) */
    double my_res = 0.0;
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    for (int c = 0; c < colours; c++) {
      int lo = r->hot_start[c], hi = r->hot_start[c + 1];
      double e = 0.0;
      if (c == RELAXED_MAX_COLOURS) { /* one run, the whole colour */
#ifdef _OPENMP
#pragma omp single
#endif
        e = list_share(r, k, omega, kind, hot_level, lo, hi,
                       &run_kept[line[(size_t)c * nt * RELAXED_CURSOR_STRIDE + 1]]);
      } else {
        for (int s = 0; s < nt; s++) { /* its own share first, then the unfinished ones */
          int q = (t + s) % nt, start = share_start(lo, hi, q, nt), end = share_start(lo, hi, q + 1, nt), from, to;
          int *l = &line[((size_t)c * nt + q) * RELAXED_CURSOR_STRIDE];
          while (take_run(&l[0], end, RELAXED_LIST_RUN, &from, &to)) {
            double x = list_share(r, k, omega, kind, hot_level, from, to,
                                  &run_kept[l[1] + (from - start) / RELAXED_LIST_RUN]);
            if (x > e) e = x;
          }
        }
#ifdef _OPENMP
#pragma omp barrier
#endif
      }
      if (e > my_res) my_res = e;
    }
#ifdef _OPENMP
#pragma omp critical(clt_relaxed_list)
#endif
    if (my_res > res) res = my_res;
  }
  /* the kept entries moved together, run by run in list order (the list still ascends) */
  for (int c = 0; c < colours; c++) {
    int lo = r->hot_start[c], hi = r->hot_start[c + 1];
    r->hot_start[c] = out;
    for (int q = 0; q < nt; q++) {
      const int *l = &line[((size_t)c * nt + q) * RELAXED_CURSOR_STRIDE];
      int from = share_start(lo, hi, q, nt), to = share_start(lo, hi, q + 1, nt), step = RELAXED_LIST_RUN;
      if (c == RELAXED_MAX_COLOURS) { /* (one run, share 0's: the whole colour) */
        if (q > 0) break;
        from = lo, to = lo + 1, step = 1;
      }
      for (int a = from, i = l[1]; a < to; a += step, i++) {
        int n = run_kept[i];
        if (n > 0 && a != out) memmove(list + out, list + a, (size_t)n * sizeof *list);
        out += n;
      }
    }
  }
  r->hot_start[colours] = out;
  *hot_count = out;
  return res;
}

/* One sweep over the colours in order; with `focus`, only the blocks marked hot by the last visit
 * (their update exceeded hot_level). Returns the largest ‖D ΔP‖∞ of the blocks visited. Serially
 * (par false) the colours run back to back without a parallel region; in parallel the threads take
 * runs of every colour as they come for them (take_run; the focused passes likewise: sweep_list),
 * with a barrier between colours. Each block's update is the same
 * arithmetic on the same inputs either way (the blocks of a colour share no body), and the max and
 * the count do not depend on the order they are combined in. */
static double colour_sweep(clt_relaxed_work_t *r, const cone_t *k, bool par, double omega, int kind, bool focus,
                           double hot_level, int *hot_count) {
  double res = 0.0;
  int hot = 0;
  int colours = r->colour_count;
  if (focus) {
    if (!r->hot_list_valid) hot_list_build(r, par);
    res = sweep_list(r, k, par, omega, kind, hot_level, &hot);
    if (hot_count) *hot_count = hot;
    return res;
  }
  r->hot_list_valid = false; /* the flags change under the list */
  if (!par) {
    for (int c = 0; c < colours; c++) {
      double e = sweep_range(r, k, r->colour_start[c], r->colour_start[c + 1], r->colour_start[c + 1], omega, kind,
                             hot_level, &hot);
      if (e > res) res = e;
    }
    if (hot_count) *hot_count = hot;
    return res;
  }
  /* cursor (c, q): the next block of share q of colour c, one cache line apart (the owners take
   * their runs without sharing a line) */
  int *cursor = r->share_kept, nt = 1;
#ifdef _OPENMP
  nt = omp_get_max_threads();
#endif
  for (int c = 0; c < colours; c++)
    for (int q = 0; q < nt; q++)
      cursor[((size_t)c * nt + q) * RELAXED_CURSOR_STRIDE] =
          share_start(r->colour_start[c], r->colour_start[c + 1], q, nt);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
  { /* (each thread's count and max over all colours, combined once at the end) */
    int my_hot = 0, t = 0;
    double my_res = 0.0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    for (int c = 0; c < colours; c++) {
      int lo = r->colour_start[c], hi = r->colour_start[c + 1];
      double e = 0.0;
      if (c == RELAXED_MAX_COLOURS) { /* the overflow colour: its contacts may share bodies */
#ifdef _OPENMP
#pragma omp single
#endif
        e = sweep_range(r, k, lo, hi, hi, omega, kind, hot_level, &my_hot);
      } else {
        /* Its own share of the colour in runs, front to back, then runs of the shares still
         * unfinished (a thread slowed down, on a busier core or slower memory, is helped out at
         * the end instead of waited for). A team smaller than planned takes the missing shares
         * the same way. Which thread visits a block does not change its update (the blocks of a
         * colour share no body). */
        for (int s = 0; s < nt; s++) {
          int q = (t + s) % nt, end = share_start(lo, hi, q + 1, nt), from, to;
          int *at = &cursor[((size_t)c * nt + q) * RELAXED_CURSOR_STRIDE];
          while (take_run(at, end, RELAXED_RUN, &from, &to)) {
            double x = sweep_range(r, k, from, to, end, omega, kind, hot_level, &my_hot);
            if (x > e) e = x;
          }
        }
#ifdef _OPENMP
#pragma omp barrier
#endif
      }
      if (e > my_res) my_res = e;
    }
#ifdef _OPENMP
#pragma omp critical(clt_relaxed_sweep)
#endif
    {
      hot += my_hot;
      if (my_res > res) res = my_res;
    }
  }
  if (hot_count) *hot_count = hot;
  return res;
}

BGS_INLINE double block_residual_at(const clt_relaxed_contact_t *ct, const cone_t *k, const double *dv, int kind) {
  double wv[3] = {0.0, 0.0, 0.0};
  if (kind == KERNEL_SPHERE) {
    double t2[3];
    sphere_t2(ct, t2);
    sphere_velocity(ct, dv, t2, wv);
    return block_residual(ct, k, wv, 3, 1);
  }
  if (kind == KERNEL_FAST) {
    block_velocity3(ct, dv, wv);
    return block_residual(ct, k, wv, 3, 1);
  }
  block_velocity(ct, dv, k->dim, wv);
  return block_residual(ct, k, wv, k->dim, cone_circ(k));
}

/* The exact residual of the current iterate (no update): max over the joint rows and the blocks.
 * With `bound` it may stop early: the hot blocks (where the residual usually sits) are checked
 * first, then, serially, the others, and the scan ends at the first block above `bound` (the
 * value returned is then some value above bound, not the max). The answer to "residual ≤ bound?"
 * is the same either way, and when it is yes the value is the exact max. */
static double exact_residual(const clt_step_work_t *w, clt_relaxed_work_t *r, const cone_t *k, int nj, int nc,
                             bool par, int kind, const double *bound) {
  double res = 0.0;
  for (int p = 0; p < nj; p++)
    if (r->joint_diag[p] > 0.0) res = fmax(res, fabs(joint_velocity(w, r, p)));
  const unsigned char *flag = r->hot;
  if (bound) {
    if (res > *bound) return res;
    for (int i = 0; i < nc; i++) {
      if (!flag[i]) continue;
      double e = block_residual_at(clt_relaxed_block(r, i), k, r->dv, kind);
      if (e > res) res = e;
      if (res > *bound) return res;
    }
    if (!par) {
      for (int i = 0; i < nc; i++) {
        if (flag[i]) continue;
        double e = block_residual_at(clt_relaxed_block(r, i), k, r->dv, kind);
        if (e > res) res = e;
        if (res > *bound) return res;
      }
      return res;
    }
  }
  CLT_PARALLEL_FOR_IF(par, schedule(static) reduction(max : res),
  for (int i = 0; i < nc; i++) {
    double e = block_residual_at(clt_relaxed_block(r, i), k, r->dv, kind);
    if (e > res) res = e;
  });
  return res;
}

/* dv = M̂⁻¹ Gᵀ P of the starting point: colour by colour (no two blocks of a colour share a body). */
static void accumulate_start(const clt_step_work_t *w, clt_relaxed_work_t *r, const cone_t *k, int nj, bool par) {
  for (int p = 0; p < nj; p++)
    if (r->joint_x[p] != 0.0) joint_apply(w, r, p, r->joint_x[p]);
  for (int c = 0; c < r->colour_count; c++) {
    int lo = r->colour_start[c], hi = r->colour_start[c + 1];
    bool cpar = par && c != RELAXED_MAX_COLOURS;
    CLT_PARALLEL_FOR_IF(cpar, schedule(static),
    for (int i = lo; i < hi; i++) {
      clt_relaxed_contact_t *ct = clt_relaxed_block(r, i);
      if (ct->x[0] == 0.0 && ct->x[1] == 0.0 && ct->x[2] == 0.0) continue;
      if (r->sphere) {
        double t2[3];
        sphere_t2(ct, t2);
        sphere_apply(ct, r->dv, t2, ct->x);
      } else
        block_apply(ct, r->inv, r->dv, k->dim, ct->x);
    });
  }
}

clt_status_t clt_relaxed_bgs_solve(clt_step_context_t *c, clt_relaxed_work_t *r) {
  clt_world_t *world = c->world;
  clt_step_work_t *w = c->work;
  clt_diagnostics_t *d = c->diagnostics;
  int nc = w->contact_count, nj = w->joint_rows, nb = world->body_count;
  int dim = world->dimension == 2 ? 2 : 3;
  int m = w->friction_directions;
  if (!reserve(r, nc, nb, nj))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (relaxed block Gauss-Seidel)");
  cone_t cone;
  memset(&cone, 0, sizeof cone);
  cone.dim = dim;
  cone.m = clt_method_effective_cone(world) == CLT_CONE_CIRCULAR || dim == 2 ? 0 : m;
  if (cone.m > 64) cone.m = 64;
  for (int i = 0; i < cone.m; i++) {
    double a = CLT_TWO_PI * (double)i / (double)cone.m;
    cone.cs[i] = cos(a);
    cone.sn[i] = sin(a);
  }
  if (cone.m > 0) cone.cos_half = cos(0.5 * CLT_TWO_PI / (double)cone.m);
  cone.md = dim == 3 && m <= 64 ? m : 0;
  /* scheme anitescu-hart reaches this solve only on the circular cone (step.c): s = 0 */
  cone.coulomb = world->method.scheme == CLT_SCHEME_ANITESCU_HART && cone.m == 0;
  for (int i = 0; i < cone.md; i++) {
    double a = CLT_TWO_PI * (double)i / (double)m;
    cone.dc[i] = cos(a);
    cone.ds[i] = sin(a);
  }
  bool par = nc >= RELAXED_BGS_PARALLEL_MIN;

  /* bodies */
  CLT_PARALLEL_FOR_IF(nb >= RELAXED_BGS_PARALLEL_MIN, schedule(static),
  for (int i = 0; i < nb; i++) {
    const clt_body_rec_t *b = &world->bodies[i];
    bool dyn = b->type == CLT_BODY_DYNAMIC;
    r->dyn[i] = dyn ? i : -1;
    r->mask[i] = 0;
    double *v = r->dv + DV_STRIDE * (size_t)i;
    memset(v, 0, DV_STRIDE * sizeof *v);
    v[DV_INV_MASS] = dyn ? b->inv_mass : 0.0;
    v[DV_INV_INERTIA] = dyn ? b->inv_inertia[0] : 0.0;
  });

  /* greedy colouring in contact order, then the slots by colour (stable) */
  CLT_PARALLEL_FOR_IF(par, schedule(static),
  for (int j = 0; j < nc; j++) {
    const clt_contact_t *ct = &w->contacts[j];
    r->ends[2 * j] = ct->body_a >= 0 ? r->dyn[ct->body_a] : -1;
    r->ends[2 * j + 1] = ct->body_b >= 0 ? r->dyn[ct->body_b] : -1;
  });
  /* (the masks were zeroed in the body loop above) */
  r->colour_count = clt_colour_pairs(nc, r->ends, r->mask, r->colour, r->order, r->colour_start);
  /* the colouring's input and work are dead until the next solve's colouring: given back before the
   * records are written, they do not count in the solve's peak memory (base/pages.h) */
  clt_work_release(w, r->ends, (size_t)r->contact_capacity * 2 * sizeof *r->ends);
  clt_work_release(w, r->mask, (size_t)r->body_capacity * sizeof *r->mask);
  /* the records' layout: sphere where every contact allows it (and no joint row shares the bodies'
   * body-frame velocities), else general (clt_relaxed_contact_t) */
  bool fast = dim == 3 && cone.m == 0; /* the kernel instances of the piles */
  bool sphere = fast && nj == 0;
  CLT_PARALLEL_FOR_IF(par, schedule(static) reduction(&& : sphere),
  for (int j = 0; j < nc; j++) sphere = sphere && sphere_contact(world, &w->contacts[j]);
  );
  r->sphere = sphere;
  if (!sphere) { /* M̂⁻¹ from the bodies (what stage "inverse mass" would give: M̂ = M, the solve
                    refuses the semi-implicit gyroscopic term before it gets here;
                    clt_stage_relaxed_inverse_mass) and, in 3D, the rotation matrices build_block3
                    reads (the sphere layout needs neither: their pages stay untouched in a pile) */
    CLT_PARALLEL_FOR_IF(nb >= RELAXED_BGS_PARALLEL_MIN, schedule(static),
    for (int i = 0; i < nb; i++) {
      const clt_body_rec_t *b = &world->bodies[i];
      double *im = r->inv + DV_STRIDE * (size_t)i;
      const double *v = r->dv + DV_STRIDE * (size_t)i; /* 1/m and J⁻¹'s first entry, or 0 */
      memset(im, 0, DV_STRIDE * sizeof *im);
      im[0] = v[DV_INV_MASS];
      im[DV_ANG] = v[DV_INV_INERTIA];
      im[DV_ANG + 1] = r->dyn[i] >= 0 && dim == 3 ? b->inv_inertia[1] : 0.0;
      im[DV_ANG + 2] = r->dyn[i] >= 0 && dim == 3 ? b->inv_inertia[2] : 0.0;
      if (dim == 3) clt_q_to_m3((double(*)[3])(r->rot + 9 * (size_t)i), world->states[i].orientation);
    });
  }
  /* Past here only the warm start's keys and the records' build read the contacts: in the sphere
   * layout the keys come from a shelf and the contacts are made again one at a time from it where
   * they can be (clt_contacts_shelve), their pages given back before the impulses are found and the
   * records written; Δ is made again with each contact (as clt_stage_relaxed_contacts made it) */
  bool shelved = sphere && clt_contacts_shelve(world, w);
  if (shelved) clt_work_release(w, r->delta, (size_t)r->contact_capacity * sizeof *r->delta);
  /* The warm start, part one: each contact's impulses in the contact memory (of the last step, or
   * of the solve before), in contact order (mostly the memory's key order: warm_find's lookup hint,
   * one per thread; the hint only saves searches, so any split finds the same entries), into z
   * after the joint rows, CLT_Z_BRACKET a contact in slot order (z is dead until the end of this
   * solve, and has room: stage "solve"; the colours' array, dead, holds each contact's slot). The
   * solve before's memory is then dead, and given back before the records are written (32 bytes a
   * contact instead of 64 beside them), and the records' build takes each contact's 32 bytes in
   * slot order, giving them back as it goes (base/pages.h): the impulses found and the records
   * are not resident at once either. */
  double *found = w->z + nj;
  if (world->method.warm_start) {
    int *slot = r->colour;
    CLT_PARALLEL_FOR_IF(par, schedule(static),
    for (int i = 0; i < nc; i++) slot[r->order[i]] = i;
    );
#ifdef _OPENMP
#pragma omp parallel if (par)
#endif
    {
      int hint = -1;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
      for (int j = 0; j < nc; j++) {
        int key[3]; /* (shape_a, shape_b, feature) */
        if (shelved) {
          memcpy(key, r->sweep->shelf + 3 * (size_t)j, sizeof key);
          if (key[1] < 0) key[1] = ~key[1];
        } else {
          key[0] = w->contacts[j].shape_a, key[1] = w->contacts[j].shape_b, key[2] = w->contacts[j].feature;
        }
        warm_find(w, key, found + CLT_Z_BRACKET * (size_t)slot[j], &hint);
      }
    }
    if (r->round_warm)
      clt_work_release(w, r->round_memory, (size_t)r->round_memory_capacity * sizeof *r->round_memory);
  }
  clt_work_release(w, r->colour, (size_t)r->contact_capacity * sizeof *r->colour);
  if (!reserve_records(r, nc,
                       sizeof(clt_relaxed_contact_t) +
                           sizeof(double) * (sphere ? CLT_RELAXED_ROWS_SPHERE : CLT_RELAXED_ROWS_GENERAL)))
    return clt_world_fail(world, CLT_ERR_OUT_OF_MEMORY, "step: out of memory (relaxed block Gauss-Seidel)");
  int kind = sphere ? KERNEL_SPHERE : fast ? KERNEL_FAST : KERNEL_GENERIC;
  if (nc > 0) memset(r->hot, 0, (size_t)nc);
  r->hot_list_valid = false;
  /* the records, then the warm start's part two: each block's P onto its cone (warm_block), in
   * runs of BUILD_RUN slots whose found impulses are then given back. Not where the records take
   * huge pages (base/pages.h): there z does too, and giving back part of a huge page splits it
   * (the 10⁵ pile, whose records are 35 MB, needs no runs) */
  bool runs = clt_work_releases(w) && r->contact_bytes < CLT_RELEASE_HUGE_BYTES;
  int lost = nc;
  bool warm = world->method.warm_start;
  for (int i0 = 0; i0 < nc; i0 += BUILD_RUN) {
    int i1 = i0 + BUILD_RUN < nc ? i0 + BUILD_RUN : nc;
    CLT_PARALLEL_FOR_IF(par, schedule(static) reduction(min : lost),
    for (int i = i0; i < i1; i++) {
      clt_relaxed_contact_t *ct = clt_relaxed_block(r, i);
      ct->index = r->order[i]; /* (here, not in a pass of its own: that would touch every record's page) */
      if (sphere) {
        clt_contact_t made;
        if (shelved && !clt_contact_remake(world, w, ct->index, &made)) {
          if (ct->index < lost) lost = ct->index;
          continue;
        }
        double delta = shelved ? c->scheme->bias(&world->method, made.distance, c->h) + made.restitution_bias
                               : r->delta[ct->index];
        build_sphere(world, r, ct->index, shelved ? &made : w->contacts + ct->index, delta, ct);
      } else if (dim == 3) {
        build_block3(world, w, r, ct->index, ct, r->block_A + 6 * (size_t)i);
      } else {
        build_block(world, w, r, ct->index, ct, r->block_A + 6 * (size_t)i, dim);
      }
      if (warm) warm_block(r, &cone, ct, found + CLT_Z_BRACKET * (size_t)i);
    });
    if (warm && runs)
      clt_work_release(w, found + CLT_Z_BRACKET * (size_t)i0, (size_t)(i1 - i0) * CLT_Z_BRACKET * sizeof *found);
  }
  if (lost < nc) return clt_contact_lost(world, w, lost);

  /* joint rows: diag(A), b = J v_free + Υ */
  for (int p = 0; p < nj; p++) {
    const clt_row_t *row = &w->rows[p];
    double diag = 0.0;
    for (int side = 0; side < 2; side++) {
      int body = side == 0 ? row->body_a : row->body_b;
      int dd = body >= 0 ? r->dyn[body] : -1;
      if (dd < 0) continue;
      const double *lin = side == 0 ? row->jac.linear_a : row->jac.linear_b;
      const double *ang = side == 0 ? row->jac.angular_a : row->jac.angular_b;
      const double *im = r->inv + DV_STRIDE * (size_t)dd;
      diag += im[0] * clt_v3_dot(lin, lin) + im[DV_ANG] * ang[0] * ang[0] + im[DV_ANG + 1] * ang[1] * ang[1] +
              im[DV_ANG + 2] * ang[2] * ang[2];
    }
    r->joint_diag[p] = diag;
    r->joint_bias[p] = clt_row_velocity(world, row) + w->row_bias[p];
    r->joint_x[p] = 0.0;
  }

  /* b's scale for the residual */
  double bmax = 0.0;
  for (int p = 0; p < nj; p++) bmax = fmax(bmax, fabs(r->joint_bias[p]));
  CLT_PARALLEL_FOR_IF(par, schedule(static) reduction(max : bmax),
  for (int i = 0; i < nc; i++)
    for (int k = 0; k < dim; k++) {
      double e = fabs(clt_relaxed_block(r, i)->bias[k]); /* fmax(bmax, e) without the call (no NaN in bmax) */
      if (e > bmax) bmax = e;
    });
  double scale = 1.0 + bmax;
  double tol = world->method.tolerance * (world->method.absolute_tolerance ? 1.0 : scale);
  if (world->method.velocity_tolerance > 0.0 && world->method.velocity_tolerance < tol)
    tol = world->method.velocity_tolerance;

  /* warm start */
  if (world->method.warm_start) {
    for (int p = 0; p < nj && w->joint_impulse; p++) {
      int owner = w->joint_row_owner[p];
      if (CLT_JOINT_SLOTS * owner + 6 <= w->joint_impulse_capacity)
        r->joint_x[p] = w->joint_impulse[CLT_JOINT_SLOTS * owner + w->joint_row_component[p]];
    }
    /* (part two was the records' build's) */
    accumulate_start(w, r, &cone, nj, par);
  }
  /* What the build and the warm start read is dead until the next solve writes it (z: at its end):
   * none of it counts in the sweeps' peak memory (base/pages.h) */
  clt_work_release(w, r->delta, (size_t)r->contact_capacity * sizeof *r->delta);
  clt_work_release(w, found, (size_t)nc * CLT_Z_BRACKET * sizeof *found);

  int sweeps = 0, max_sweeps = world->method.max_iterations;
  double omega = world->method.relaxation;
  double res = exact_residual(w, r, &cone, nj, nc, par, kind, max_sweeps > 0 ? &tol : NULL);
  bool res_exact = max_sweeps <= 0 || res <= tol; /* the max, not only a bound (exact_residual) */
  clt_solver_status_t status = res <= tol ? CLT_SOLVE_SOLVED : CLT_SOLVE_MAX_ITERATIONS;
  while (status != CLT_SOLVE_SOLVED && sweeps < max_sweeps) {
    sweeps++;
    double sweep_res = joint_sweep(w, r, nj);
    int hot = 0;
    sweep_res = fmax(sweep_res, colour_sweep(r, &cone, par, omega, kind, false, RELAXED_HOT * tol, &hot));
    /* Focused passes: the residual of a pile is carried by few blocks most of the time (one block
     * above the tolerance and a thousand above a tenth of it, sweep after sweep, on the 10³ pile);
     * revisiting the blocks whose update exceeded a quarter of the tolerance, in the same colour
     * order, cuts the sweeps there from a mean of 61 to 13 over its first 300 steps at tolerance
     * 3e-3 (27 with half the tolerance). */
    /* (threads only when there is enough to share: the numbers do not depend on it) */
    for (int f = 0; f < RELAXED_FOCUS && sweep_res > tol && hot > 0; f++)
      colour_sweep(r, &cone, par && hot >= RELAXED_LIST_PARALLEL_MIN, omega, kind, true, RELAXED_HOT * tol, &hot);
    if (!isfinite(sweep_res)) break;
    if (sweep_res <= 3.0 * tol || sweeps == max_sweeps) {
      /* (the last sweep's residual is the reported one: computed in full) */
      res = exact_residual(w, r, &cone, nj, nc, par, kind, sweeps < max_sweeps ? &tol : NULL);
      res_exact = sweeps == max_sweeps || res <= tol;
      if (res <= tol) status = CLT_SOLVE_SOLVED;
    }
  }
  if (!res_exact) res = exact_residual(w, r, &cone, nj, nc, par, kind, NULL); /* a non-finite sweep ended it */
  bool usable = isfinite(res), finite = true; /* (an and over the bodies: any order) */
  CLT_PARALLEL_FOR_IF(nb >= RELAXED_BGS_PARALLEL_MIN, schedule(static) reduction(&& : finite),
  for (int i = 0; i < nb; i++)
    for (int k = 0; k < 3; k++)
      finite = finite && isfinite(r->dv[DV_STRIDE * (size_t)i + k]) &&
               isfinite(r->dv[DV_STRIDE * (size_t)i + DV_ANG + k]);
  );
  usable = usable && finite;
  if (!usable) status = CLT_SOLVE_ERROR;

  d->lcp_size = nj + dim * nc;
  d->solver_status = status;
  d->iterations = sweeps;
  d->residual = res / scale;

  /* impulses into work->z in its compact layout (rows.h, z_bracket): c_n and the tangential part
   * on the two bracketing directions */
  int blk = CLT_Z_BRACKET, nstd = nj + nc * blk;
  w->lcp_n = nstd;
  w->z_bracket = true;
  if (!usable) {
    memset(w->z, 0, sizeof(double) * (size_t)nstd);
    clt_work_release(w, r->order, (size_t)r->contact_capacity * sizeof *r->order);
    return CLT_OK;
  }
  for (int p = 0; p < nj; p++) w->z[p] = r->joint_x[p];
  /* Where the step gives pages back, each run of BUILD_RUN records goes into z_slot in slot order
   * and is then given back, and z_slot into z by contact index: the records and z are not
   * resident at once (z's pages are written in index order, which touches them all at once); not
   * where the records take huge pages (runs, above) */
  double *out = runs ? r->z_slot : w->z + nj;
  for (int i0 = 0; i0 < nc; i0 += BUILD_RUN) {
    int i1 = i0 + BUILD_RUN < nc ? i0 + BUILD_RUN : nc;
    CLT_PARALLEL_FOR_IF(par, schedule(static),
    for (int i = i0; i < i1; i++) {
      const clt_relaxed_contact_t *ct = clt_relaxed_block(r, i);
      double *z = out + (size_t)(runs ? i : ct->index) * (size_t)blk;
      int k0, k1;
      double alpha, beta;
      clt_relaxed_bracket(cone.md == m ? cone.dc : NULL, cone.md == m ? cone.ds : NULL, world->dimension, m, ct->x[1],
                          dim == 3 ? ct->x[2] : 0.0, &k0, &k1, &alpha, &beta);
      clt_z_bracket_put(z, ct->x[0], k0, alpha, k1, beta);
    });
    if (runs)
      clt_work_release(w, (char *)r->contacts + (size_t)i0 * r->contact_stride, (size_t)(i1 - i0) * r->contact_stride);
  }
  if (runs) {
    CLT_PARALLEL_FOR_IF(par, schedule(static),
    for (int i = 0; i < nc; i++)
      memcpy(w->z + nj + (size_t)r->order[i] * (size_t)blk, r->z_slot + (size_t)i * (size_t)blk, blk * sizeof(double));
    );
    clt_work_release(w, r->z_slot, (size_t)nc * (size_t)blk * sizeof *r->z_slot);
  }
  clt_work_release(w, r->order, (size_t)r->contact_capacity * sizeof *r->order);
  clt_relaxed_apply_dv(world, r);
  r->dv_applied = true;
  return CLT_OK;
}

void clt_relaxed_apply_dv(clt_world_t *world, const clt_relaxed_work_t *r) {
  int nb = world->body_count;
  bool sphere = r->sphere;
  /* v⁺ = v_free + dv */
  CLT_PARALLEL_FOR_IF(nb >= RELAXED_BGS_PARALLEL_MIN, schedule(static),
  for (int i = 0; i < nb; i++) {
    if (r->dyn[i] < 0) continue;
    const double *u = r->dv + DV_STRIDE * (size_t)i;
    clt_body_state_t *s = &world->states[i];
    if (world->dimension == 2) {
      s->velocity[0] += u[0];
      s->velocity[1] += u[1];
      s->angular_velocity[0] += u[DV_ANG];
    } else if (sphere) { /* ω's change is world-frame: Rᵀ dω into the body frame */
      double R[9];
      clt_q_to_m3((double(*)[3])R, s->orientation);
      for (int k = 0; k < 3; k++) {
        s->velocity[k] += u[k];
        s->angular_velocity[k] += R[k] * u[DV_ANG] + R[3 + k] * u[DV_ANG + 1] + R[6 + k] * u[DV_ANG + 2];
      }
    } else {
      for (int k = 0; k < 3; k++) {
        s->velocity[k] += u[k];
        s->angular_velocity[k] += u[DV_ANG + k];
      }
    }
  });
}

void clt_relaxed_work_destroy(clt_relaxed_work_t *r) {
  if (!r) return;
  free(r->coulomb_shift);
  free(r->contacts), free(r->delta), free(r->colour), free(r->order), free(r->ends), free(r->hot),
      free(r->block_A), free(r->hot_list), free(r->share_kept), free(r->run_kept);
  free(r->dv), free(r->inv), free(r->rot), free(r->dyn), free(r->mask);
  free(r->demand), free(r->demanded), free(r->solved), free(r->round_memory);
  free(r->z_slot);
  free(r->joint_x), free(r->joint_diag), free(r->joint_bias);
  free(r->rows), free(r->minv), free(r->b), free(r->x), free(r->y), free(r->u), free(r->mu);
  free(r->offset), free(r->count), free(r->cone_start), free(r->body_start), free(r->body_entry), free(r->fill);
  free(r);
}

void clt_relaxed_visit_memory(const clt_relaxed_work_t *r, clt_memory_visit_fn f, void *u) {
  if (!r) return;
  const void *relaxed[] = {r->contacts, r->delta,    r->coulomb_shift, r->block_A, r->colour,   r->order,
                           r->z_slot,   r->ends,     r->hot,           r->hot_list, r->share_kept, r->run_kept,
                           r->dv,       r->inv,      r->rot,           r->dyn,     r->mask,     r->demand,
                           r->solved,   r->demanded, r->round_memory,  r->joint_x, r->joint_diag, r->joint_bias,
                           r->rows,     r->minv,     r->b,             r->x,       r->y,        r->u,
                           r->mu,       r->offset,   r->count,         r->cone_start, r->body_start, r->body_entry,
                           r->fill};
  static const char *const relaxed_names[] = {
      "relaxed contacts", "relaxed delta",      "relaxed coulomb_shift", "relaxed block_A",    "relaxed colour",
      "relaxed order",    "relaxed z_slot",     "relaxed ends",          "relaxed hot",        "relaxed hot_list",
      "relaxed share_kept", "relaxed run_kept", "relaxed dv",            "relaxed inv",        "relaxed rot",
      "relaxed dyn",      "relaxed mask",       "relaxed demand",        "relaxed solved",     "relaxed demanded",
      "relaxed round_memory", "relaxed joint_x", "relaxed joint_diag",   "relaxed joint_bias", "relaxed rows",
      "relaxed minv",     "relaxed b",          "relaxed x",             "relaxed y",          "relaxed u",
      "relaxed mu",       "relaxed offset",     "relaxed count",         "relaxed cone_start", "relaxed body_start",
      "relaxed body_entry", "relaxed fill"};
  _Static_assert(sizeof relaxed / sizeof *relaxed == sizeof relaxed_names / sizeof *relaxed_names, "one name a buffer");
  for (size_t i = 0; i < sizeof relaxed / sizeof *relaxed; i++) f(u, relaxed_names[i], relaxed[i], true);
}
