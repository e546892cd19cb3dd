/* Coordination numbers from the touching contacts, with and without rattlers (clatter/analysis.h;
 * docs/analysis.md "Coordination number"). */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

typedef struct pair_t {
  int a, b; /* a < b */
} pair_t;

static int compare_pairs(const void *x, const void *y) {
  const pair_t *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return p->b < q->b ? -1 : p->b > q->b;
}

clt_status_t clt_analysis_coordination(const clt_analysis_frame_t *f, const clt_analysis_box_t *region,
                                       int min_contacts, clt_coordination_t *out, char *message, size_t message_size) {
  clt_status_t st = clt_analysis_check_frame(f, message, message_size);
  if (st != CLT_OK) return st;
  if (min_contacts < 1)
    return clt_analysis_fail(message, message_size, "min_contacts: must be at least 1 (got %d)", min_contacts);
  memset(out, 0, sizeof *out);
  size_t n = (size_t)f->body_count;
  /* distinct touching pairs with a particle in them: a face on a floor touches at up to 4 points */
  pair_t *pairs = malloc(sizeof *pairs * (size_t)(f->contact_count > 0 ? f->contact_count : 1));
  int64_t *start = calloc(n + 1, sizeof *start);
  int *partners_left = calloc(n + 1, sizeof *partners_left);
  bool *removed = calloc(n + 1, sizeof *removed);
  int *queue = malloc(sizeof *queue * (n + 1));
  int *adjacent = NULL;
  int64_t count = 0;
  if (!pairs || !start || !partners_left || !removed || !queue) goto out_of_memory;
  for (int64_t c = 0; c < f->contact_count; c++) {
    int a = f->contact_body_a[c], b = f->contact_body_b[c];
    if (!clt_analysis_contact_counts(f, c)) continue;
    pairs[count++] = (pair_t){a < b ? a : b, a < b ? b : a};
  }
  qsort(pairs, (size_t)count, sizeof *pairs, compare_pairs);
  int64_t unique = 0;
  for (int64_t k = 0; k < count; k++)
    if (unique == 0 || compare_pairs(&pairs[k], &pairs[unique - 1]) != 0) pairs[unique++] = pairs[k];
  /* each particle's partners, as rows of one array (compressed rows) */
  for (int64_t k = 0; k < unique; k++) {
    if (clt_analysis_particle(f, pairs[k].a)) start[pairs[k].a + 1]++;
    if (clt_analysis_particle(f, pairs[k].b)) start[pairs[k].b + 1]++;
  }
  for (size_t i = 0; i < n; i++) start[i + 1] += start[i];
  adjacent = malloc(sizeof *adjacent * (size_t)(start[n] > 0 ? start[n] : 1));
  if (!adjacent) goto out_of_memory;
  int64_t *fill = calloc(n + 1, sizeof *fill);
  if (!fill) goto out_of_memory;
  memcpy(fill, start, sizeof *fill * (n + 1));
  for (int64_t k = 0; k < unique; k++) {
    if (clt_analysis_particle(f, pairs[k].a)) adjacent[fill[pairs[k].a]++] = pairs[k].b;
    if (clt_analysis_particle(f, pairs[k].b)) adjacent[fill[pairs[k].b]++] = pairs[k].a;
  }
  free(fill);
  /* rattlers: a particle with fewer than min_contacts partners left (walls and particles not yet
   * removed) goes, which can take a neighbour below the threshold in turn */
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < n; i++) {
    partners_left[i] = (int)(start[i + 1] - start[i]);
    if (clt_analysis_particle(f, (int)i) && partners_left[i] < min_contacts) {
      removed[i] = true;
      queue[tail++] = (int)i;
    }
  }
  while (head < tail) {
    int i = queue[head++];
    for (int64_t k = start[i]; k < start[i + 1]; k++) {
      int j = adjacent[k];
      if (!clt_analysis_particle(f, j) || removed[j]) continue;
      if (--partners_left[j] < min_contacts) {
        removed[j] = true;
        queue[tail++] = j;
      }
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (!clt_analysis_particle(f, (int)i) || !clt_analysis_inside(region, f->dimension, f->position + 3 * i)) continue;
    out->particles++;
    out->partners += start[i + 1] - start[i];
    if (removed[i]) {
      out->rattlers++;
    } else {
      out->backbone_partners += partners_left[i];
    }
  }
  out->mean = out->particles > 0 ? (double)out->partners / out->particles : NAN;
  int backbone = out->particles - out->rattlers;
  out->mechanical = backbone > 0 ? (double)out->backbone_partners / backbone : NAN;
  st = CLT_OK;
  goto done;
out_of_memory:
  st = CLT_ERR_OUT_OF_MEMORY;
  clt_analysis_fail(message, message_size, "out of memory");
done:
  free(pairs);
  free(start);
  free(partners_left);
  free(removed);
  free(queue);
  free(adjacent);
  return st;
}
