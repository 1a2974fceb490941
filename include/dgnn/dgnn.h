/* dgnn.h: the whole library in one include, and a map of it.
 *
 * dgnn trains dynamic graph neural networks: memory-based models over an event stream
 * (TGN, JODIE, DyRep, APAN) and snapshot models over a sequence of graphs (EvolveGCN-O/-H,
 * T-GCN, GCRN-GRU, WD-GCN, a static GCN), on one process or many (MPI), with DepBloom and
 * DyGNeX for the many. The headers below are in layer order: each may use the ones above it
 * and none below (docs/architecture.md; scripts/check-layers.sh checks it). Each header is
 * named like the source files it declares.
 *
 * A tour, following one training run of `dgnn train`:
 *  1. Read the data. readers.h loads any supported format into the event table of events.h
 *     (or binfmt.h's .dgnn file; gen.h generates one); infile.h is the checked open every
 *     reader uses. split.h cuts the chronological train/val/test parts.
 *  2. Index it. tcsr.h builds the temporal CSR that sampler.h queries for the most recent
 *     neighbours; negative.h draws negative destinations. For snapshot models, snapshot.h
 *     cuts the stream into graphs and snapshot_graph.h hands them to the kernels.
 *  3. Compute. nn.h holds the dense kernels (linear, GRU, attention, time encoding, matrix
 *     GRU, LSTM, losses: free functions over plain arrays, outputs first), spmm.h the sparse
 *     ones. Every forward has a backward, tested against finite differences.
 *  4. Model. params.h is the one parameter slab a model's named pointers point into;
 *     tgnn.h is the event models over state.h's node memory (tgnn_cuda.h: TGN, JODIE, DyRep on a GPU,
 *     through cuda.h's device ops); snapmodel.h the snapshot
 *     models (snapmodel_cuda.h: on a GPU); node_head.h the snapshot trainer's regression head; node_mlp.h the decoder
 *     of dynamic node classification.
 *  5. Distribute. comm.h is everything across processes (the only MPI user; comm_dev.h: over GPU buffers, NCCL or staged through the host);
 *     partition.h is DepBloom's temporally bounded partitioning; sched.h DyGNeX's schedulers
 *     (even, greedy, ILP) over costmodel.h's per-window costs; simulate.h the cluster
 *     simulators that extrapolate both to many workers.
 *  6. Train. event_train.h runs the event protocol (one process, strict, DepBloom);
 *     event_node.h classifies event labels from a frozen event model's embeddings (the
 *     TGN code's supervised protocol); snap_train.h the snapshot protocol (one process,
 *     DyGNeX); adam.h steps the slab,
 *     metrics.h scores, checkpoint.h saves and resumes.
 *  7. Report. svg.h draws schedules and scaling curves; outfile.h is how every file is
 *     written (atomically, checked before the work starts).
 *
 * Conventions every header follows: library functions return 0 or a negative DGNN_E...
 * status and fill a dgnn_err message naming the file, line or field (base.h); they never
 * exit. */
#ifndef DGNN_DGNN_H
#define DGNN_DGNN_H

/* base */
#include "dgnn/base.h"
#include "dgnn/outfile.h"
#include "dgnn/prof.h"
#include "dgnn/vec.h"
#include "dgnn/par.h"
/* nn: kernels */
#include "dgnn/nn.h"
#include "dgnn/spmm.h"
#if defined(DGNN_HAVE_CUDA) && DGNN_HAVE_CUDA
#include "dgnn/cuda.h"
#endif
/* data */
#include "dgnn/events.h"
#include "dgnn/infile.h"
#include "dgnn/readers.h"
#include "dgnn/binfmt.h"
#include "dgnn/npy.h"
#include "dgnn/gen.h"
#include "dgnn/split.h"
#include "dgnn/tcsr.h"
#include "dgnn/sampler.h"
#include "dgnn/negative.h"
#include "dgnn/edgeset.h"
#include "dgnn/eval_neg.h"
#include "dgnn/snapshot.h"
#include "dgnn/snapshot_graph.h"
/* models */
#include "dgnn/params.h"
#include "dgnn/state.h"
#include "dgnn/tgnn.h"
#include "dgnn/tgnn_cuda.h"
#include "dgnn/snapmodel_cuda.h"
#include "dgnn/snapmodel.h"
#include "dgnn/node_head.h"
#include "dgnn/node_mlp.h"
#include "dgnn/edgebank.h"
/* cluster: communication, partitioning, scheduling, simulators */
#include "dgnn/comm.h"
#include "dgnn/comm_dev.h"
#include "dgnn/partition.h"
#include "dgnn/costmodel.h"
#include "dgnn/sched.h"
#include "dgnn/simulate.h"
/* train */
#include "dgnn/adam.h"
#include "dgnn/metrics.h"
#include "dgnn/checkpoint.h"
#include "dgnn/event_train.h"
#include "dgnn/event_node.h"
#include "dgnn/snap_train.h"
/* report */
#include "dgnn/svg.h"
/* capi: the flat API of libdgnn.so for ctypes (python/dgnn); in libdgnn.so only */
#include "dgnn/capi.h"

#endif
