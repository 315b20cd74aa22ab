/* test_bindings.c — the edges of a ref run: bindings_resolve (command-line
 * NAME=VALUE against the graph's inputs, --weights for %self), module
 * attributes through prim::GetAttr, and outputs_write (flattening, 0-d
 * arrays for Python numbers, checking every output before writing any).
 * Files are made in a fresh temporary directory; expected values are the
 * inputs themselves or derived by hand beside each check.
 */
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/ref/ref_test_util.h"
#include "tssa/frontend.h"
#include "tssa/io.h"
#include "tssa/value.h"

static char tmpdir[] = "/tmp/tssa_ref_test_XXXXXX";

static char *tmp_path(const char *name)
{
    char *p = malloc(strlen(tmpdir) + strlen(name) + 2);
    sprintf(p, "%s/%s", tmpdir, name);
    return p;
}

/* Resolves `args` (NULL-terminated) against g; returns whether it worked,
 * with the error text in *err_text (malloc'd). */
static bool resolve(IrGraph *g, const char **args, const char *weights, RtValue ***inputs,
                    int *ninputs, Safetensors **st, char **err_text)
{
    int n = 0;
    while (args[n])
        n++;
    size_t len = 0;
    FILE *err = open_memstream(err_text, &len);
    bool ok = bindings_resolve(g, n, (char **)args, weights, inputs, ninputs, st, err);
    fclose(err);
    return ok;
}

static void release_inputs(RtValue **inputs, int n)
{
    for (int i = 0; i < n; i++)
        rt_release(inputs[i]);
    free(inputs);
}

static const char *typed_graph =
    "graph(%x.1 : Float(2, strides=[1], requires_grad=0, device=cpu),\n"
    "      %n.1 : int,\n"
    "      %f.1 : float,\n"
    "      %b.1 : bool,\n"
    "      %o.1 : int?):\n"
    "  return (%x.1)\n";

/* One resolution expected to fail with a message containing `part`. */
static void expect_binding_error(IrGraph *g, const char **args, const char *part)
{
    RtValue **inputs = NULL;
    int n = -1;
    Safetensors *st = NULL;
    char *err = NULL;
    bool ok = resolve(g, args, NULL, &inputs, &n, &st, &err);
    CHECK(!ok);
    CHECK(inputs == NULL && n == 0 && st == NULL);
    CHECK_CONTAINS(err, part);
    free(err);
    if (ok)
        release_inputs(inputs, n);
}

static void test_bindings(void)
{
    IrGraph *g = parse_graph(typed_graph);
    if (!g)
        return;
    char *f32 = tmp_path("x.npy"), *i64 = tmp_path("i.npy"), *f32_2d = tmp_path("m.npy");
    char *x_arg = malloc(strlen(f32) + 3), *i_arg = malloc(strlen(i64) + 3),
         *m_arg = malloc(strlen(f32_2d) + 3), *n_npy = malloc(strlen(i64) + 3);
    sprintf(x_arg, "x=%s", f32);
    sprintf(i_arg, "x=%s", i64);
    sprintf(m_arg, "x=%s", f32_2d);
    sprintf(n_npy, "n=%s", i64);
    Tensor *x = vector_f32(2, (double[]){1.5, -2});
    int64_t two = 2, sizes2[2] = {1, 2};
    Tensor *xi = tensor_zeros(DT_I64, 1, &two), *xm = tensor_zeros(DT_F32, 2, sizes2);
    CHECK(npy_write(f32, x, stderr) && npy_write(i64, xi, stderr) && npy_write(f32_2d, xm, stderr));

    /* Everything fits: a float for a float input may be an int literal. */
    const char *good[] = {x_arg, "n=3", "f=2", "b=true", "o=none", NULL};
    RtValue **inputs = NULL;
    int n = 0;
    Safetensors *st = NULL;
    char *err = NULL;
    CHECK(resolve(g, good, NULL, &inputs, &n, &st, &err));
    CHECK(n == 5);
    if (n == 5) {
        CHECK(inputs[0]->kind == RT_TENSOR &&
              tensor_equals(inputs[0]->u.t, 2, (double[]){1.5, -2}));
        CHECK(inputs[1]->kind == RT_INT && inputs[1]->u.i == 3);
        CHECK(inputs[2]->kind == RT_FLOAT && inputs[2]->u.f == 2.0);
        CHECK(inputs[3]->kind == RT_BOOL && inputs[3]->u.i == 1);
        CHECK(inputs[4]->kind == RT_NONE);
        release_inputs(inputs, n);
    }
    free(err);

    /* Optional with a value; float literals inf and 1e-3; order is free. */
    const char *good2[] = {"o=7", "b=false", "f=1e-3", "n=-4", x_arg, NULL};
    CHECK(resolve(g, good2, NULL, &inputs, &n, &st, &err));
    if (n == 5) {
        CHECK(inputs[4]->kind == RT_INT && inputs[4]->u.i == 7);
        CHECK(inputs[2]->u.f == 1e-3 && inputs[1]->u.i == -4 && inputs[3]->u.i == 0);
        release_inputs(inputs, n);
    }
    free(err);
    const char *inf_arg[] = {x_arg, "n=1", "f=inf", "b=true", "o=none", NULL};
    CHECK(resolve(g, inf_arg, NULL, &inputs, &n, &st, &err));
    if (n == 5) {
        CHECK(isinf(inputs[2]->u.f));
        release_inputs(inputs, n);
    }
    free(err);

    expect_binding_error(g, (const char *[]){x_arg, "f=2", "b=true", "o=none", NULL},
                         "input 'n' (int): missing binding");
    expect_binding_error(g, (const char *[]){x_arg, "n=1", "f=2", "b=true", "o=none", "zz=1", NULL},
                         "no graph input named 'zz'");
    expect_binding_error(g, (const char *[]){x_arg, "n=1", "n=2", "f=2", "b=true", "o=none", NULL},
                         "input 'n': bound twice");
    expect_binding_error(g, (const char *[]){x_arg, "n=2.5", "f=2", "b=true", "o=none", NULL},
                         "input 'n' (int): expected an int literal, got '2.5'");
    expect_binding_error(g, (const char *[]){x_arg, n_npy, "f=2", "b=true", "o=none", NULL},
                         "input 'n' (int)");
    expect_binding_error(g, (const char *[]){"x=3", "n=1", "f=2", "b=true", "o=none", NULL},
                         "input 'x'");
    expect_binding_error(g, (const char *[]){i_arg, "n=1", "f=2", "b=true", "o=none", NULL},
                         "the graph declares Float, the file holds int64");
    expect_binding_error(g, (const char *[]){m_arg, "n=1", "f=2", "b=true", "o=none", NULL},
                         "the graph declares 1 dims, the file holds 2");
    expect_binding_error(g, (const char *[]){x_arg, "n=1", "f=2", "b=yes", "o=none", NULL},
                         "input 'b' (bool)");
    expect_binding_error(g, (const char *[]){x_arg, "n=1", "f=2", "b=true", "o=x", NULL},
                         "input 'o'");
    expect_binding_error(g, (const char *[]){x_arg, "n1", NULL}, "binding 'n1' is not NAME=VALUE");

    tensor_release(x);
    tensor_release(xi);
    tensor_release(xm);
    unlink(f32);
    unlink(i64);
    unlink(f32_2d);
    free(f32);
    free(i64);
    free(f32_2d);
    free(x_arg);
    free(i_arg);
    free(m_arg);
    free(n_npy);
    ir_graph_free(g);
}

/* ---------------------------------------------------------------- defaults */

/* The inputs a forward's defaults give (issue 30): `kernel: Tuple[int, int]
 * = (2, 2)`, `weights: Optional[List[float]] = None`, `state: Any? = None`,
 * `timestep: Optional[Tensor] = None`, all bound explicitly (the graph text
 * has no defaults). Lists and tuples are JSON; expected values are the
 * literals written in each binding. */
static const char *defaults_graph =
    "graph(%kernel : (int, int),\n"
    "      %weights : float[]?,\n"
    "      %flags : bool[],\n"
    "      %state.1 : Any?,\n"
    "      %timestep.1 : Tensor?,\n"
    "      %nested : int[][]):\n"
    "  return (%kernel)\n";

static void test_default_bindings(void)
{
    IrGraph *g = parse_graph(defaults_graph);
    if (!g)
        return;
    const char *good[] = {"kernel=[2,3]", "weights=[0.5,-1]", "flags=[true,false,true]",
                          "state=None", "timestep=None", "nested=[[1],[],[2,3]]", NULL};
    RtValue **inputs = NULL;
    int n = 0;
    Safetensors *st = NULL;
    char *err = NULL;
    CHECK(resolve(g, good, NULL, &inputs, &n, &st, &err));
    CHECK(n == 6);
    if (n == 6) {
        RtValue *k = inputs[0], *w = inputs[1], *f = inputs[2], *nest = inputs[5];
        CHECK(k->kind == RT_TUPLE && k->u.list.n == 2 && k->u.list.items[0]->kind == RT_INT &&
              k->u.list.items[0]->u.i == 2 && k->u.list.items[1]->u.i == 3);
        CHECK(w->kind == RT_LIST && w->u.list.n == 2 && w->u.list.items[0]->kind == RT_FLOAT &&
              w->u.list.items[0]->u.f == 0.5 && w->u.list.items[1]->kind == RT_FLOAT &&
              w->u.list.items[1]->u.f == -1.0);
        CHECK(f->kind == RT_LIST && f->u.list.n == 3 && f->u.list.items[0]->kind == RT_BOOL &&
              f->u.list.items[0]->u.i == 1 && f->u.list.items[1]->u.i == 0);
        CHECK(inputs[3]->kind == RT_NONE && inputs[4]->kind == RT_NONE);
        CHECK(nest->kind == RT_LIST && nest->u.list.n == 3 && nest->u.list.items[1]->u.list.n == 0 &&
              nest->u.list.items[2]->u.list.items[1]->u.i == 3);
        release_inputs(inputs, n);
    }
    free(err);

    /* An Optional list left at None; an empty list; Any from a literal. */
    const char *good2[] = {"kernel=[1,1]", "weights=none", "flags=[]", "state=4",
                           "timestep=None", "nested=[]", NULL};
    CHECK(resolve(g, good2, NULL, &inputs, &n, &st, &err));
    if (n == 6) {
        CHECK(inputs[1]->kind == RT_NONE && inputs[2]->kind == RT_LIST && inputs[2]->u.list.n == 0);
        CHECK(inputs[3]->kind == RT_INT && inputs[3]->u.i == 4);
        release_inputs(inputs, n);
    }
    free(err);

#define REST "weights=None", "flags=[]", "state=None", "timestep=None", "nested=[]"
    expect_binding_error(g, (const char *[]){"kernel=None", REST, NULL},
                         "input 'kernel' ((int, int)): None binds only an Optional input");
    expect_binding_error(g, (const char *[]){"kernel=[2,3", REST, NULL},
                         "input 'kernel' ((int, int)): expected a JSON array");
    expect_binding_error(g, (const char *[]){"kernel=[2,3,4]", REST, NULL},
                         "input 'kernel' ((int, int)): expected a JSON array");
    expect_binding_error(g, (const char *[]){"kernel=[2,3.5]", REST, NULL},
                         "got '[2,3.5]'");
    expect_binding_error(g, (const char *[]){"kernel=[2,3]x", REST, NULL},
                         "got '[2,3]x'");
    expect_binding_error(g, (const char *[]){"kernel=(2,3)", REST, NULL},
                         "expected a JSON array");
    expect_binding_error(g, (const char *[]){"kernel=[2,3]", "weights=[1,\"a\"]", "flags=[]",
                                             "state=None", "timestep=None", "nested=[]", NULL},
                         "input 'weights' (float[]): expected a JSON array");
    expect_binding_error(g, (const char *[]){"kernel=[2,3]", "weights=None", "flags=[1]",
                                             "state=None", "timestep=None", "nested=[]", NULL},
                         "input 'flags' (bool[])");
    expect_binding_error(g, (const char *[]){"kernel=[2,3]", REST, "nested=[[1],2]", NULL},
                         "input 'nested': bound twice");
    expect_binding_error(g, (const char *[]){"kernel=[2,3]", "weights=None", "flags=[]",
                                             "state=None", "nested=[]", NULL},
                         "input 'timestep' (Tensor?): missing binding: pass timestep=VALUE, "
                         "or timestep=None");
#undef REST
    ir_graph_free(g);

    /* Lists and tuples of tensors: .npy paths in brackets, None for an
     * Optional item, [] for an empty list; a dict of tensors has no
     * command-line spelling. */
    g = parse_graph("graph(%xs : Tensor[], %p : (Tensor, Tensor), %o : Tensor?[]):\n  return (%xs)\n");
    char *a = tmp_path("la.npy"), *b = tmp_path("lb.npy");
    int64_t three = 3;
    Tensor *ta = tensor_full(DT_F32, 1, &three, 1.5), *tb = tensor_full(DT_I64, 1, &three, 7);
    CHECK(npy_write(a, ta, stderr) && npy_write(b, tb, stderr));
    tensor_release(ta);
    tensor_release(tb);
    char xs[600], p[600], o[600], p3[600];
    snprintf(xs, sizeof xs, "xs=[%s,%s,%s]", a, b, a);
    snprintf(p3, sizeof p3, "p=[%s,%s,%s]", a, b, a);
    snprintf(p, sizeof p, "p=[%s,%s]", b, a);
    snprintf(o, sizeof o, "o=[None,%s]", b);
    if (g) {
        RtValue **lists = NULL;
        int nlists = 0;
        Safetensors *no_weights = NULL;
        char *text = NULL;
        CHECK(resolve(g, (const char *[]){xs, p, o, NULL}, NULL, &lists, &nlists, &no_weights, &text));
        CHECK(nlists == 3);
        if (nlists == 3) {
            CHECK(lists[0]->kind == RT_LIST && lists[0]->u.list.n == 3 &&
                  lists[0]->u.list.items[1]->kind == RT_TENSOR &&
                  lists[0]->u.list.items[1]->u.t->dtype == DT_I64);
            CHECK(lists[1]->kind == RT_TUPLE && lists[1]->u.list.n == 2);
            CHECK(lists[2]->kind == RT_LIST && lists[2]->u.list.n == 2 &&
                  lists[2]->u.list.items[0]->kind == RT_NONE);
            release_inputs(lists, nlists);
        }
        free(text);
        expect_binding_error(g, (const char *[]){"xs=3", p, o, NULL},
                             "input 'xs' (Tensor[]): expected [a.npy,b.npy,...]");
        expect_binding_error(g, (const char *[]){"xs=[]", "p=[]", o, NULL},
                             "input 'p' ((Tensor, Tensor)): expected 2 items, got 0");
        expect_binding_error(g, (const char *[]){"xs=[]", p3, o, NULL},
                             "input 'p' ((Tensor, Tensor)): expected 2 items, got more");
        expect_binding_error(g, (const char *[]){"xs=[,]", p, o, NULL},
                             "input 'xs' (Tensor[]): an empty item in '[,]'");
        expect_binding_error(g, (const char *[]){"xs=[None]", p, o, NULL},
                             "None binds only an Optional input");
        expect_binding_error(g, (const char *[]){"xs=[3]", p, o, NULL},
                             "a tensor input takes a .npy file, got '3'");
        ir_graph_free(g);
    }
    free(a);
    free(b);
    /* A Dict(str, Tensor): {key:path,...}; other dicts have no spelling. */
    g = parse_graph("graph(%d : Dict(str, Tensor), %e : Dict(str, int)):\n  return (%d)\n");
    char *la = tmp_path("la.npy"), d_arg[600], d_twice[600];
    snprintf(d_arg, sizeof d_arg, "d={p3:%s,p4.x:%s}", la, la);
    snprintf(d_twice, sizeof d_twice, "d={p3:%s,p3:%s}", la, la);
    if (g) {
        RtValue **dicts = NULL;
        int ndicts = 0;
        Safetensors *no_weights = NULL;
        char *text = NULL;
        const char *args[] = {d_arg, "e={}", NULL};
        (void)resolve(g, args, NULL, &dicts, &ndicts, &no_weights, &text);
        CHECK_CONTAINS(text, "input 'e' (Dict(str, int)): this type cannot be bound from the command line");
        free(text);
        expect_binding_error(g, (const char *[]){"d=[]", "e=1", NULL},
                             "input 'd' (Dict(str, Tensor)): expected {key:a.npy,...}");
        expect_binding_error(g, (const char *[]){d_twice, "e=1", NULL}, "key 'p3' given twice");
        expect_binding_error(g, (const char *[]){"d={p 3:x.npy}", "e=1", NULL}, "expected key:path items");
        ir_graph_free(g);
    }
    g = parse_graph("graph(%d : Dict(str, Tensor)):\n  return (%d)\n");
    if (g) {
        RtValue **dicts = NULL;
        int ndicts = 0;
        Safetensors *no_weights = NULL;
        char *text = NULL;
        CHECK(resolve(g, (const char *[]){d_arg, NULL}, NULL, &dicts, &ndicts, &no_weights, &text));
        CHECK(ndicts == 1 && dicts[0]->kind == RT_DICT && rt_dict_count(dicts[0]) == 2);
        if (ndicts == 1)
            release_inputs(dicts, ndicts);
        free(text);
        ir_graph_free(g);
    }
    free(la);
}

/* ---------------------------------------------------------------- modules */

/* A safetensors file by hand: 8-byte little-endian header length, the JSON
 * header (padded with spaces), then the data. One tensor lin.weight = [1, 2]
 * (float32) and metadata scale = 2.5, ks = [3, 3], lin.bias = None. */
static bool write_weights(const char *path)
{
    const char *header = "{\"__metadata__\":{\"ks\":\"[3, 3]\",\"lin.bias\":\"None\","
                         "\"scale\":\"2.5\"},\"lin.weight\":{\"dtype\":\"F32\",\"shape\":[2],"
                         "\"data_offsets\":[0,8]}}";
    size_t hlen = strlen(header), padded = (hlen + 7) / 8 * 8;
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    uint64_t len = padded;
    unsigned char len_bytes[8];
    for (int i = 0; i < 8; i++)
        len_bytes[i] = (unsigned char)(len >> (8 * i));
    float data[2] = {1.0f, 2.0f}; /* the test machines are little-endian, as the format */
    fwrite(len_bytes, 1, 8, f);
    fwrite(header, 1, hlen, f);
    for (size_t i = hlen; i < padded; i++)
        fputc(' ', f);
    fwrite(data, sizeof data[0], 2, f);
    return fclose(f) == 0;
}

static const char *module_graph =
    "graph(%self : __torch__.M,\n"
    "      %x.1 : Tensor):\n"
    "  %lin : __torch__.Lin = prim::GetAttr[name=\"lin\"](%self)\n"
    "  %w : Tensor = prim::GetAttr[name=\"weight\"](%lin)\n"
    "  %bias : Tensor? = prim::GetAttr[name=\"bias\"](%lin)\n"
    "  %s : float = prim::GetAttr[name=\"scale\"](%self)\n"
    "  %t : bool = prim::GetAttr[name=\"training\"](%lin)\n"
    "  %k : int[] = prim::GetAttr[name=\"ks\"](%self)\n"
    "  %y : Tensor = aten::mul(%w, %s)\n"
    "  %z : Tensor = aten::add_(%w, %x.1, %s)\n"
    "  %w2 : Tensor = prim::GetAttr[name=\"weight\"](%lin)\n"
    "  %nc : NoneType = prim::Constant()\n"
    "  %none : bool = aten::__is__(%bias, %nc)\n"
    "  return (%y, %t, %k, %w2, %none)\n";

static void test_module_attributes(void)
{
    IrGraph *g = parse_graph(module_graph);
    IrGraph *missing = parse_graph(
        "graph(%self : __torch__.M):\n"
        "  %lin : __torch__.Lin = prim::GetAttr[name=\"lin\"](%self)\n"
        "  %w : Tensor = prim::GetAttr[name=\"gamma\"](%lin) # m.py:5:3\n"
        "  return (%w)\n");
    char *weights = tmp_path("w.safetensors");
    char *x_path = tmp_path("mx.npy");
    char *x_arg = malloc(strlen(x_path) + 3);
    sprintf(x_arg, "x=%s", x_path);
    Tensor *x = vector_f32(2, (double[]){1, 1});
    CHECK(write_weights(weights) && npy_write(x_path, x, stderr));
    if (g && missing) {
        /* No --weights: the module input cannot be bound. */
        expect_binding_error(g, (const char *[]){x_arg, NULL},
                             "input 'self' (__torch__.M): a module input needs --weights");
        expect_binding_error(
            g, (const char *[]){"self=1", x_arg, NULL},
            "input 'self' (__torch__.M): a module input takes its value from --weights");

        RtValue **inputs = NULL;
        int n = 0;
        Safetensors *st = NULL;
        char *err = NULL;
        CHECK(resolve(g, (const char *[]){x_arg, NULL}, weights, &inputs, &n, &st, &err));
        free(err);
        if (n == 2 && st) {
            CHECK(inputs[0]->kind == RT_OBJECT && inputs[0]->u.s[0] == '\0');
            RunResult r = run_graph(g, inputs, n, st);
            CHECK(r.status == 0);
            if (r.status == 0) {
                /* y = [1, 2] * 2.5 before the add_; training absent -> false */
                CHECK(tensor_equals(r.outputs[0]->u.t, 2, (double[]){2.5, 5}));
                CHECK(r.outputs[1]->kind == RT_BOOL && r.outputs[1]->u.i == 0);
                CHECK(r.outputs[2]->kind == RT_LIST && r.outputs[2]->u.list.n == 2 &&
                      r.outputs[2]->u.list.items[1]->u.i == 3);
                /* the weight was updated in place: w + 2.5 * x = [3.5, 4.5], and a
                 * later read of the attribute sees it */
                CHECK(tensor_equals(r.outputs[3]->u.t, 2, (double[]){3.5, 4.5}));
                CHECK(r.outputs[4]->kind == RT_BOOL && r.outputs[4]->u.i == 1);
            } else {
                fprintf(stderr, "%s", r.err);
            }
            run_result_free(&r);

            RtValue *self = inputs[0];
            RunResult m = run_graph(missing, &self, 1, st);
            CHECK(m.status == 1);
            CHECK_CONTAINS(
                m.err,
                "m.py:5: error: prim::GetAttr: weight 'lin.gamma' is not in the weights file");
            run_result_free(&m);
        }
        if (inputs)
            release_inputs(inputs, n);
        safetensors_close(st);
    }
    tensor_release(x);
    unlink(weights);
    unlink(x_path);
    free(weights);
    free(x_path);
    free(x_arg);
    ir_graph_free(g);
    ir_graph_free(missing);
}

/* ---------------------------------------------------------------- outputs */

static void test_outputs_write(void)
{
    char *dir = tmp_path("out/nested");
    char *bad_dir = tmp_path("bad");
    Tensor *t = vector_f32(2, (double[]){1, 2});
    RtValue *items[2] = {rt_float(0.25), rt_bool(true)};
    RtValue *inner = rt_list(RT_TUPLE, 2, items);
    RtValue *empty = rt_list(RT_LIST, 0, NULL);
    RtValue *top_items[3] = {rt_tensor(t), rt_int(-3), inner};
    RtValue *tuple = rt_list(RT_TUPLE, 3, top_items);
    RtValue *outputs[2] = {tuple, empty};

    CHECK(outputs_write(dir, outputs, 2, stderr));
    /* flattened: out0 tensor, out1 int64 -3, out2 float64 0.25, out3 bool true */
    const TensorDType dtypes[4] = {DT_F32, DT_I64, DT_F64, DT_BOOL};
    const int ndims[4] = {1, 0, 0, 0};
    const double first[4] = {1, -3, 0.25, 1};
    for (int i = 0; i < 4; i++) {
        char name[64];
        snprintf(name, sizeof name, "out/nested/out%d.npy", i);
        char *path = tmp_path(name);
        Tensor *back = npy_read(path, stderr);
        CHECK(back && back->dtype == dtypes[i] && back->ndim == ndims[i] &&
              tensor_get_flat(back, 0) == first[i]);
        tensor_release(back);
        unlink(path);
        free(path);
    }
    char *extra = tmp_path("out/nested/out4.npy");
    CHECK(access(extra, F_OK) != 0);
    free(extra);

    /* A string output: nothing is written, not even the directory. */
    RtValue *s = rt_str("text");
    RtValue *with_str[2] = {top_items[0], s};
    char *msg = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&msg, &len);
    CHECK(!outputs_write(bad_dir, with_str, 2, err));
    fclose(err);
    CHECK_CONTAINS(msg, "output 1 is a str");
    CHECK(access(bad_dir, F_OK) != 0);
    free(msg);

    char *summary = NULL;
    FILE *sum = open_memstream(&summary, &len);
    outputs_summarize(sum, outputs, 2);
    fclose(sum);
    CHECK(summary && strcmp(summary, "out0: Tensor float32[2]\nout1: int -3\n"
                                     "out2: float 0.25\nout3: bool true\n") == 0);
    free(summary);

    for (int i = 0; i < 2; i++)
        rt_release(items[i]);
    for (int i = 0; i < 3; i++)
        rt_release(top_items[i]);
    rt_release(tuple);
    rt_release(empty);
    rt_release(s);
    tensor_release(t);
    char *out_dir = tmp_path("out");
    rmdir(dir);
    rmdir(out_dir);
    free(out_dir);
    free(dir);
    free(bad_dir);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_bindings();
    test_default_bindings();
    test_module_attributes();
    test_outputs_write();
    rmdir(tmpdir);
    return test_report("ref_bindings");
}
