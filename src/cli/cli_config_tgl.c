/* cli_config_tgl.c: TGL's config layout (config/TGN.yml, JODIE.yml, APAN.yml of
 * amazon-science/tgl) as `dgnn train` flags. TGL's files name a model by its parts:
 *   TGN   memory_update gru, deliver_to self, gnn arch transformer_attention
 *   JODIE memory_update rnn, deliver_to self, gnn arch identity, time_transform JODIE
 *   APAN  memory_update transformer, deliver_to neighbors, gnn arch identity
 * and a TGL-layout file trains with TGL's semantics: --preset tgl (TGL's attention layer,
 * negatives drawn from all nodes), then its widths and training settings. What dgnn cannot
 * honour (two layers, snapshots of history, another updater, ...) is refused naming the key
 * and what dgnn supports; what does not change the computation here (sampler threads,
 * all_on_gpu) is accepted and told in one log line. */
#include <stdio.h>
#include <string.h>

#include "cli_config.h"
#include "dgnn/base.h"

enum {
    S_LAYER, S_NEIGHBOR, S_STRATEGY, S_PROP_TIME, S_HISTORY, S_DURATION, S_NUM_THREAD, S_NO_SAMPLE, S_NO_NEG,
    M_TYPE, M_DIM_TIME, M_DELIVER_TO, M_MAIL_COMBINE, M_MEMORY_UPDATE, M_ATTENTION_HEAD, M_MAILBOX_SIZE,
    M_COMBINE_NODE_FEATURE, M_DIM_OUT,
    G_ARCH, G_LAYER, G_ATT_HEAD, G_DIM_TIME, G_DIM_OUT, G_TIME_TRANSFORM,
    T_EPOCH, T_BATCH_SIZE, T_LR, T_DROPOUT, T_ATT_DROPOUT, T_ALL_ON_GPU,
    N_KEYS
};

const char *const cli_tgl_keys[] = {
    "sampling.layer", "sampling.neighbor", "sampling.strategy", "sampling.prop_time", "sampling.history",
    "sampling.duration", "sampling.num_thread", "sampling.no_sample", "sampling.no_neg",
    "memory.type", "memory.dim_time", "memory.deliver_to", "memory.mail_combine", "memory.memory_update",
    "memory.attention_head", "memory.mailbox_size", "memory.combine_node_feature", "memory.dim_out",
    "gnn.arch", "gnn.layer", "gnn.att_head", "gnn.dim_time", "gnn.dim_out", "gnn.time_transform",
    "train.epoch", "train.batch_size", "train.lr", "train.dropout", "train.att_dropout", "train.all_on_gpu",
    NULL,
};

#define V(i) (vals[i].v)
#define ERR(i, ...) cli_cfg_error(t, vals[i].line, cli_tgl_keys[i], __VA_ARGS__)

/* 1 when value i is given and differs from want (compared as text) */
static int differs(const cli_tgl_val *vals, int i, const char *want) { return V(i) && strcmp(V(i), want) != 0; }

/* a boolean key: -1 absent, else 0/1; -2 after the message */
static int boolean(cli_cfg_toks *t, const cli_tgl_val *vals, int i) {
    if (!V(i)) return -1;
    const int b = cli_cfg_bool(V(i));
    if (b < 0) { ERR(i, "expects True or False (got '%s')", V(i)); return -2; }
    return b;
}

static int push(cli_cfg_toks *t, const cli_tgl_val *vals, int i, const char *flag) {
    return V(i) ? cli_cfg_push(t, flag, V(i), vals[i].quoted, vals[i].line, cli_tgl_keys[i]) : 0;
}

/* two TGL keys dgnn has one setting for: equal when both are given */
static int same(cli_cfg_toks *t, const cli_tgl_val *vals, int a, int b, const char *flag) {
    if (V(a) && V(b) && strcmp(V(a), V(b)) != 0)
        return ERR(b, "'%s' differs from %s '%s' (dgnn has one --%s for both)", V(b), cli_tgl_keys[a], V(a), flag);
    return push(t, vals, V(a) ? a : b, flag);
}

static int model_of(cli_cfg_toks *t, const cli_tgl_val *vals, const char **model) {
    if (!V(M_MEMORY_UPDATE))
        return cli_cfg_error(t, 1, "memory.memory_update", "missing (dgnn trains TGL's memory-based models: gru for TGN, "
                                                           "rnn for JODIE, transformer for APAN)");
    if (!V(G_ARCH)) return cli_cfg_error(t, vals[M_MEMORY_UPDATE].line, "gnn.arch", "missing (transformer_attention or identity)");
    const char *mu = V(M_MEMORY_UPDATE), *arch = V(G_ARCH);
    if (strcmp(arch, "transformer_attention") && strcmp(arch, "identity"))
        return ERR(G_ARCH, "'%s': dgnn supports transformer_attention (TGN) and identity (JODIE, APAN)", arch);
    if (strcmp(mu, "gru") == 0) {
        if (strcmp(arch, "transformer_attention")) return ERR(G_ARCH, "'%s': with memory_update gru dgnn trains TGN, whose arch is transformer_attention", arch);
        *model = "tgn";
    } else if (strcmp(mu, "rnn") == 0) {
        if (strcmp(arch, "identity") || !V(G_TIME_TRANSFORM))
            return ERR(M_MEMORY_UPDATE, "rnn: dgnn trains it as JODIE (gnn arch identity, time_transform JODIE); "
                                        "for dgnn's DyRep (the TGN code's) write dgnn: model: dyrep");
        *model = "jodie";
    } else if (strcmp(mu, "transformer") == 0) {
        if (strcmp(arch, "identity")) return ERR(G_ARCH, "'%s': with memory_update transformer dgnn trains APAN, whose arch is identity", arch);
        *model = "apan";
    } else {
        return ERR(M_MEMORY_UPDATE, "'%s': dgnn supports gru (TGN), rnn (JODIE), transformer (APAN)", mu);
    }
    if (differs(vals, G_TIME_TRANSFORM, "JODIE")) return ERR(G_TIME_TRANSFORM, "'%s': dgnn supports JODIE", V(G_TIME_TRANSFORM));
    if (V(G_TIME_TRANSFORM) && strcmp(*model, "jodie")) return ERR(G_TIME_TRANSFORM, "JODIE's time projection goes with memory_update rnn");
    const char *deliver = strcmp(*model, "apan") == 0 ? "neighbors" : "self";
    if (differs(vals, M_DELIVER_TO, deliver))
        return ERR(M_DELIVER_TO, "'%s': dgnn's %s delivers mails to %s", V(M_DELIVER_TO), *model, deliver);
    return 0;
}

int cli_tgl_tokens(cli_cfg_toks *t, const cli_tgl_val *vals, int nbr_count, const char **model) {
    int rc;
    if ((rc = model_of(t, vals, model))) return rc;
    const int apan = strcmp(*model, "apan") == 0, jodie = strcmp(*model, "jodie") == 0;
    /* what dgnn computes one way only */
    if (differs(vals, S_LAYER, "1")) return ERR(S_LAYER, "%s: dgnn samples one layer of neighbours (1)", V(S_LAYER));
    if (differs(vals, G_LAYER, "1")) return ERR(G_LAYER, "%s: dgnn has one attention layer (1)", V(G_LAYER));
    if (differs(vals, S_HISTORY, "1")) return ERR(S_HISTORY, "%s: dgnn samples no snapshots of history (1)", V(S_HISTORY));
    if (differs(vals, S_DURATION, "0")) return ERR(S_DURATION, "%s: dgnn samples no time windows (0)", V(S_DURATION));
    if (differs(vals, M_TYPE, "node")) return ERR(M_TYPE, "'%s': dgnn keeps node memory (node)", V(M_TYPE));
    if (differs(vals, M_MAIL_COMBINE, "last")) return ERR(M_MAIL_COMBINE, "'%s': dgnn keeps the last mail (last)", V(M_MAIL_COMBINE));
    if (!apan && differs(vals, M_MAILBOX_SIZE, "1"))
        return ERR(M_MAILBOX_SIZE, "%s: dgnn's %s keeps one mail (1; a mailbox of several is APAN's)", V(M_MAILBOX_SIZE), *model);
    if (V(M_ATTENTION_HEAD) && !apan) return ERR(M_ATTENTION_HEAD, "the memory's attention heads are APAN's (memory_update transformer)");
    if (nbr_count > 1) return ERR(S_NEIGHBOR, "%d layers of neighbours: dgnn samples one layer (a list of one)", nbr_count);
    const int prop = boolean(t, vals, S_PROP_TIME), nosample = boolean(t, vals, S_NO_SAMPLE),
              noneg = boolean(t, vals, S_NO_NEG), cnf = boolean(t, vals, M_COMBINE_NODE_FEATURE),
              gpu = boolean(t, vals, T_ALL_ON_GPU);
    if (prop == -2 || nosample == -2 || noneg == -2 || cnf == -2 || gpu == -2) return 2;
    if (prop == 1) return ERR(S_PROP_TIME, "True: dgnn samples at the roots' own times (False)");
    if (nosample == 1 && !jodie) return ERR(S_NO_SAMPLE, "True: dgnn's %s samples neighbours (no_sample is JODIE's)", *model);
    /* dgnn's APAN samples (delivers mails) for the true src/dst only; TGN for every root */
    if (noneg == 1 && !apan && !jodie) return ERR(S_NO_NEG, "True: dgnn's %s samples neighbours of the negatives too (False)", *model);
    if (noneg == 0 && apan) return ERR(S_NO_NEG, "False: dgnn's APAN delivers mails to the true src/dst's neighbours only (True)");
    if (V(G_DIM_OUT) && strcmp(*model, "tgn") != 0) return ERR(G_DIM_OUT, "the embedding of %s is its memory: set memory.dim_out", *model);
    if (V(G_ATT_HEAD) && V(M_ATTENTION_HEAD)) return ERR(G_ATT_HEAD, "two attention head counts (dgnn has one --heads)");

    const int line = vals[M_MEMORY_UPDATE].line;
    if ((rc = cli_cfg_push(t, "model", *model, 0, line, "memory.memory_update"))) return rc;
    if ((rc = cli_cfg_push(t, "preset", "tgl", 0, line, "(TGL layout)"))) return rc;
    if (V(S_STRATEGY) && strcmp(V(S_STRATEGY), "recent") && strcmp(V(S_STRATEGY), "uniform"))
        return ERR(S_STRATEGY, "'%s': dgnn samples recent or uniform", V(S_STRATEGY));
    if ((rc = push(t, vals, S_NEIGHBOR, "neighbors")) || (rc = push(t, vals, S_STRATEGY, "sampler")) ||
        (rc = same(t, vals, M_DIM_TIME, G_DIM_TIME, "time-dim")) || (rc = push(t, vals, M_DIM_OUT, "mem-dim")) ||
        (rc = push(t, vals, G_DIM_OUT, "emb-dim")) || (rc = push(t, vals, V(G_ATT_HEAD) ? G_ATT_HEAD : M_ATTENTION_HEAD, "heads")) ||
        (apan && (rc = push(t, vals, M_MAILBOX_SIZE, "mail-slots"))) || (rc = push(t, vals, T_EPOCH, "epochs")) ||
        (rc = push(t, vals, T_BATCH_SIZE, "batch")) || (rc = push(t, vals, T_LR, "lr")) ||
        (rc = same(t, vals, T_DROPOUT, T_ATT_DROPOUT, "dropout")))
        return rc;
    char noted[256] = "";
    size_t u = 0;
    static const int quiet[] = {S_NUM_THREAD, T_ALL_ON_GPU, S_PROP_TIME, S_NO_SAMPLE, S_NO_NEG, M_COMBINE_NODE_FEATURE, S_LAYER,
                                G_LAYER, S_HISTORY, S_DURATION, M_TYPE, M_MAIL_COMBINE, M_DELIVER_TO};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        if (V(quiet[i]) && u < sizeof noted)
            u += (size_t)snprintf(noted + u, sizeof noted - u, "%s%s %s", u ? ", " : "", cli_tgl_keys[quiet[i]], V(quiet[i]));
    if (u)
        dgnn_log("%s: taken as dgnn computes them (no setting; num_thread and all_on_gpu do not change a CPU run, "
                 "combine_node_feature: dgnn adds no node features to the memory): %s\n", t->file, noted);
    return 0;
}
