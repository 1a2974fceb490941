/* metrics.h: evaluation metrics, defined exactly as the reference tools compute them,
 * so that a dgnn number can be put beside a published one.
 *
 * Conventions for every function here:
 *  - labels: 0 = negative, anything else = positive (the references use 0/1);
 *  - scores are compared as floats: equal floats are tied (-0.0 ties with +0.0);
 *  - a NaN score makes the result NaN (sklearn would raise): the caller checks isnan
 *    and reports a diverged model;
 *  - undefined values are NaN, as documented per function;
 *  - sums are accumulated in double over fixed blocks, so the results do not depend on
 *    the thread count. */
#ifndef DGNN_METRICS_H
#define DGNN_METRICS_H

#include "dgnn/base.h"
#include "dgnn/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ranking metrics over (score, label): sklearn.metrics, O(n) radix sort ----
 *
 * average_precision_score: sort by score descending; each distinct score is one
 * threshold (tied scores form one group, as sklearn's _binary_clf_curve);
 * AP = sum_n (R_n - R_{n-1}) P_n over the thresholds. All positives: 1 (as sklearn).
 * No positive, or n == 0: NaN (sklearn 1.2 returns 0 with a warning, older versions
 * NaN; NaN keeps an undefined value from passing as a score).
 *
 * roc_auc_score: the trapezoid area under the ROC curve, equal to the Mann-Whitney U
 * statistic with ties counted half: P(score_pos > score_neg) + 0.5 P(equal). Computed
 * exactly in integers, then divided. One class only, or n == 0: NaN (sklearn raises). */
double dgnn_metric_ap(const float *score, const int32_t *label, int64_t n);
double dgnn_metric_auc(const float *score, const int32_t *label, int64_t n);
/* Both with one sort; ap or auc may be NULL. */
void dgnn_metric_ap_auc(const float *score, const int32_t *label, int64_t n, double *ap, double *auc);
/* The same for scores given as positives (npos) and negatives (nneg), as the
 * memory-based trainers have them (TGN: concat([pos, neg]) with labels [1.., 0..]). */
void dgnn_metric_ap_auc_pn(const float *pos, int64_t npos, const float *neg, int64_t nneg, double *ap, double *auc);

/* ---- MRR against k negatives per positive (TGB's convention) ----
 * neg: (n, k) row-major, row i the negatives of positive i. For each i:
 *   rank_i = 1 + #{j: neg_ij > pos_i} + 0.5 * #{j: neg_ij == pos_i}
 * (TGB's evaluator: the mean of the optimistic and the pessimistic rank, so a model that
 * scores everything equal gets rank (k + 2) / 2, not 1), and MRR = mean_i 1 / rank_i.
 * n == 0: NaN. */
double dgnn_metric_mrr(const float *pos, const float *neg, int64_t n, int64_t k);

/* ---- TGB's link-property metrics (one-vs-many; TGB's Evaluator, tgb/linkproppred/evaluate.py) ----
 * For positive i with score pos[i] and candidate scores neg[i*k .. i*k + nk_i) (nk NULL:
 * nk_i = k; rows with nk_i == 0 are skipped):
 *   rank_i = 1 + 0.5 * (#{j: neg_ij > pos_i} + #{j: neg_ij >= pos_i})
 * (the mean of the optimistic and the pessimistic rank), MRR = mean 1 / rank_i,
 * Hits@h = mean [rank_i <= h] for h = 1, 3, 10. An accumulator, so batches add up
 * (sums in double, in row order). No row: NaN for each. */
typedef struct {
    double rr, hits1, hits3, hits10;
    int64_t n;
} dgnn_rank_acc;
void dgnn_rank_acc_add(dgnn_rank_acc *a, const float *pos, const float *neg, const int64_t *nk, int64_t n, int64_t k);
void dgnn_rank_acc_result(const dgnn_rank_acc *a, double *mrr, double *hits1, double *hits3, double *hits10);

/* ---- EvolveGCN's link-prediction metrics (IBM/EvolveGCN, logger.py) ----
 *
 * MAP: for each evaluated snapshot, average_precision_score(labels, probs) of its
 * (pair, label) list (dgnn_metric_ap); the epoch value is NOT the plain mean over
 * snapshots: calc_epoch_metric weights each snapshot by its number of pairs
 * (predictions.size(0)). dgnn_metric_weighted_mean(map_per_snapshot, pairs_per_snapshot).
 *
 * MRR (get_MRR / get_row_MRR): the snapshot's pairs (src, dst) with probability prob
 * and label are scattered into a dense matrix of shape (max src + 1, max dst + 1)
 * (scipy coo_matrix(...).toarray(): duplicate pairs are summed, absent pairs are 0).
 * For every row that holds an entry equal to 1 in the label matrix, the row's columns
 * are ordered by np.flip(probs.argsort()) (descending probability) and the row's MRR
 * is the mean of 1/rank over its entries with label 1 (rank 1-based, over ALL columns
 * of the row, absent pairs included as 0). The snapshot's MRR is the mean over those
 * rows. Ties: we order tied columns by decreasing column index, which is what the
 * flip of a stable ascending argsort gives (numpy's default sort is stable for rows
 * of up to 16 entries; for longer rows the reference itself leaves the order of ties
 * to its sort algorithm). So rank(i, j) = 1 + #{c: v_ic > v_ij} + #{c > j: v_ic == v_ij}.
 * In validation and test only; the reference logs MRR 0 for training snapshots.
 * No row with a label-1 entry, or n == 0: NaN (torch.tensor([]).mean()).
 * Pairs already sorted by (src, dst) (the order dgnn's trainers produce) are not
 * copied; otherwise they are sorted first. src, dst >= 0. */
double dgnn_evolvegcn_mrr(const float *prob, const int32_t *label, const int32_t *src, const int32_t *dst, int64_t n);
/* sum(val_i * weight_i) / sum(weight_i): EvolveGCN's calc_epoch_metric. NaN if the
 * weights sum to 0. */
double dgnn_metric_weighted_mean(const double *val, const double *weight, int64_t n);

/* ---- classification ----
 * Binary precision, recall and F1 of the class pos_class (sklearn's
 * precision_recall_fscore_support(average='binary', pos_label=pos_class, zero_division=0),
 * and EvolveGCN's calc_eval_measures_per_class, which returns 0, 0, 0 when tp == 0):
 * precision = tp / (tp + fp), 0 when tp + fp == 0; recall = tp / (tp + fn), 0 when
 * tp + fn == 0; f1 = 2 p r / (p + r), 0 when p + r == 0. */
typedef struct {
    int64_t tp, fp, fn, tn;
    double precision, recall, f1;
} dgnn_prf;
dgnn_prf dgnn_metric_prf(const int32_t *pred, const int32_t *truth, int64_t n, int32_t pos_class);

/* ---- regression ----
 * Mean squared error mean_i (pred_i - target_i)^2 (sklearn's mean_squared_error,
 * torch's MSELoss(reduction='mean')). n == 0: NaN. */
double dgnn_metric_mse(const float *pred, const float *target, int64_t n);

/* ---- the snapshot trainer's link metrics (EvolveGCN's logger.py) ----
 * MAP and MRR of one snapshot scored on all pairs: prob (N, N) row-major (prob[u N + v]
 * for the pair (u, v)), labels from g's entries. label (N * N) is scratch. *ap = average
 * precision over the N^2 pairs; *mrr = get_MRR (rows with an edge, ties as above). Either
 * is NaN when g has no edge. */
void dgnn_snap_link_metrics(double *ap, double *mrr, const float *prob, const dgnn_snapshot *g, int32_t *label);

#ifdef __cplusplus
}
#endif
#endif
