/* placement.c — where each node of a plan runs, decided when the plan is
 * built (NodePlacement, backend.h), and --emit=placement's table of it.
 *
 * Every node of the program's graph that runs (not the ones whose outputs
 * are all compile-time values), nested blocks included, is offered to
 * the backend's supports_node, which answers from static information only
 * (op, inferred shapes and dtypes, fused group and kernel). A fused group
 * placed on the device runs as one kernel, so its body's nodes are marked
 * SITE_IN_KERNEL and not offered. A backend without supports_node (cpu,
 * ref) runs everything on the host.
 *
 * Postcondition: site[id] is set for every live node of the graph at the
 * time of the call (SITE_NONE for ids no live node has).
 */
#include <stdlib.h>
#include <string.h>

#include "tssa/registry.h"

/* Whether every output of n is a compile-time value (specialization
 * computed it; no run executes n). */
static bool static_node(const LowerProgram *program, const IrNode *n)
{
    for (int o = 0; o < n->noutputs; o++)
        if (!lower_static_value(program, n->outputs[o]))
            return false;
    return n->noutputs > 0;
}

static void place_block(NodePlacement *p, const BackendIface *b, const LowerProgram *program, const IrBlock *blk,
                        const KernelProgram *kp, bool in_kernel)
{
    for (IrNode *n = ir_block_first(blk); !ir_node_is_end(n); n = n->next) {
        if (n->id >= p->nnodes)
            continue;
        NodeSite site = SITE_HOST;
        double cost = 0;
        const char *why = NULL;
        if (in_kernel) {
            site = SITE_IN_KERNEL;
        } else if (static_node(program, n)) {
            site = SITE_NONE;
            why = "a compile-time value (no run executes it)";
        }
        else if (b->supports_node) {
            b->supports_node(n, kp, &site, &cost, &why);
        }
        p->site[n->id] = (unsigned char)site;
        p->cost[n->id] = cost;
        p->why[n->id] = site == SITE_DEVICE || site == SITE_IN_KERNEL ? NULL : why;
        bool body_in_kernel = in_kernel || (site == SITE_DEVICE && n->op == OP_TSSA_FUSION_GROUP);
        for (int k = 0; k < n->nblocks; k++)
            place_block(p, b, program, n->blocks[k], kp, body_in_kernel);
    }
}

NodePlacement *node_placement_build(const BackendIface *b, const LowerProgram *program, const KernelProgram *kp)
{
    const IrGraph *g = lower_ir_graph(program);
    NodePlacement *p = xcalloc(1, sizeof *p);
    p->graph = g;
    p->nnodes = g->nnodes;
    p->site = xcalloc((size_t)p->nnodes + 1, sizeof *p->site);
    p->why = xcalloc((size_t)p->nnodes + 1, sizeof *p->why);
    p->cost = xcalloc((size_t)p->nnodes + 1, sizeof *p->cost);
    p->device = b->supports_node ? b->name : NULL;
    place_block(p, b, program, g->top, kp, false);
    return p;
}

/* Whether node runs on the device, or a node of its blocks does. */
static bool on_device(const NodePlacement *p, const IrNode *node)
{
    if (node->graph == p->graph && node->id < p->nnodes &&
        (p->site[node->id] == SITE_DEVICE || p->site[node->id] == SITE_IN_KERNEL))
        return true;
    for (int k = 0; k < node->nblocks; k++)
        for (IrNode *m = ir_block_first(node->blocks[k]); !ir_node_is_end(m); m = m->next)
            if (on_device(p, m))
                return true;
    return false;
}

static bool any_on_device(const NodePlacement *p, IrNode *const *nodes, int n)
{
    for (int i = 0; i < n; i++)
        if (on_device(p, nodes[i]))
            return true;
    return false;
}

void node_placement_mark_filters(const NodePlacement *p, StreamNode *n)
{
    if (n->kind != STREAM_FILTER) {
        for (int i = 0; i < n->nchildren; i++)
            node_placement_mark_filters(p, n->children[i]);
        return;
    }
    const LowerWork *w = n->filter.work;
    if (n->filter.role == FILTER_WORK && n->filter.device >= 0 && w && w->nnodes > 0 &&
        !any_on_device(p, w->nodes, w->nnodes))
        n->filter.device = -1;
}

void node_placement_free(NodePlacement *p)
{
    if (!p)
        return;
    free(p->site);
    free(p->why);
    free(p->cost);
    free(p);
}

static const char *site_text(const NodePlacement *p, NodeSite site)
{
    switch (site) {
    case SITE_DEVICE: return p->device ? p->device : "host";
    case SITE_IN_KERNEL: return "(kernel)";
    case SITE_NO_DATA: return "host*";
    case SITE_NONE: return "-";
    case SITE_HOST: break;
    }
    return "host";
}

/* The node's Python source (its "# file.py:L:C" comment) or, where the
 * text has none, its line in the graph text. */
static void source_of(const IrNode *n, char *buf, size_t size)
{
    const char *c = n->comment;
    while (c && *c == ' ')
        c++;
    if (c && *c)
        snprintf(buf, size, "%.*s", (int)strcspn(c, " \n"), c);
    else if (n->line > 0)
        snprintf(buf, size, "graph line %d", n->line);
    else
        snprintf(buf, size, "-");
}

typedef struct Counts {
    int device, host, no_data, in_kernel, compile_time;
} Counts;

static void print_block(FILE *out, const NodePlacement *p, const IrBlock *blk, int depth, Counts *c)
{
    for (IrNode *n = ir_block_first(blk); !ir_node_is_end(n); n = n->next) {
        if (n->id >= p->nnodes)
            continue;
        NodeSite site = (NodeSite)p->site[n->id];
        c->device += site == SITE_DEVICE;
        c->host += site == SITE_HOST;
        c->no_data += site == SITE_NO_DATA;
        c->in_kernel += site == SITE_IN_KERNEL;
        c->compile_time += site == SITE_NONE;
        char source[96];
        source_of(n, source, sizeof source);
        char name[64];
        snprintf(name, sizeof name, "%*s%s%s", 2 * depth, "", n->noutputs ? "%" : "",
                 n->noutputs ? n->outputs[0]->name : "-");
        const char *why = p->why[n->id];
        fprintf(out, "  %-24s %-22s %-36s %-*s%s%s\n", name, n->kind, source, why ? 8 : 0, site_text(p, site),
                why ? " " : "", why ? why : "");
        for (int k = 0; k < n->nblocks; k++)
            print_block(out, p, n->blocks[k], depth + 1, c);
    }
}

void node_placement_print(FILE *out, const NodePlacement *p)
{
    fprintf(out, "placement of %u nodes on %s\n", p->nnodes, p->device ? p->device : "the host");
    fprintf(out, "  %-24s %-22s %-36s %-8s %s\n", "node", "op", "source", "device", "why not on the device");
    Counts c = {0};
    print_block(out, p, p->graph->top, 0, &c);
    if (!p->device) {
        fprintf(out, "%d on the host, %d computed at compile time (-)\n", c.host, c.compile_time);
        return;
    }
    fprintf(out, "%d on %s, %d in its kernels, %d on the host, %d on the host reading no elements "
                 "(host*: the data stays where it is), %d computed at compile time (-)\n",
            c.device, p->device, c.in_kernel, c.host, c.no_data, c.compile_time);
}
