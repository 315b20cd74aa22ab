/* ops_random.c — bindings of the random ops (rand, randn, randint,
 * randperm, their *_like forms, normal, bernoulli, multinomial, dropout in
 * training mode, rrelu in training mode, uniform_, normal_, bernoulli_),
 * and the key each draw uses.
 *
 * A draw's numbers are a function of three things, never of which backend,
 * thread, placement or rank computes them (tensor/random.c maps them to
 * Philox4x32-10 counters element by element):
 *   seed    the run's seed (eval_set_random_seed; the driver's --seed)
 *   node    the drawing node's line in the graph text: assigned at parse
 *           time in program order, and copied to every node a pass makes
 *           from it (in-place to functional, fusion's copies)
 *   loops   the iteration of each enclosing prim::Loop (or a fused group
 *           over a loop's iterations), outermost first: read from the
 *           body's parameter 0, which every executor binds per iteration
 * stream = mix(mix(mix(line) ^ i_outer) ^ ... ^ i_inner), mix being
 * SplitMix64's finalizer (Steele, Lea, Flood: "Fast splittable
 * pseudorandom number generators", 2014) applied after adding a constant.
 * A random node is never merged, hoisted or duplicated (OPC_RANDOM in
 * ops.h; see functionalize/graph_edit.c and streamit/lower_loop.c).
 *
 * Generator arguments are accepted and must be None: the seed is the run's.
 */
#include "eval/eval_internal.h"
#include "eval/eval_ops.h"
#include "tssa/ir.h"

static uint64_t random_seed = 0;

void eval_set_random_seed(uint64_t seed) { random_seed = seed; }
uint64_t eval_random_seed(void) { return random_seed; }

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

enum { MAX_LOOP_DEPTH = 64 };

/* The key of c's draw; false (with a message) when an enclosing loop's
 * iteration is not bound where the node runs. */
static bool draw_key(EvalCall *c, TensorRandomKey *key)
{
    int64_t iterations[MAX_LOOP_DEPTH];
    int depth = 0;
    for (IrBlock *b = c->node->owner; b && b->owner; b = b->owner->owner) {
        IrNode *owner = b->owner;
        bool over_iterations = owner->op == OP_PRIM_LOOP ||
                               (owner->op == OP_TSSA_FUSION_GROUP && ir_group_iterations(owner) > 0);
        if (!over_iterations)
            continue;
        if (depth == MAX_LOOP_DEPTH)
            return eval_fail(c, "a random op nested in more than %d loops", MAX_LOOP_DEPTH);
        const RtValue *it = c->run->slots[ir_block_param(b, 0)->id];
        if (!it || it->kind != RT_INT)
            return eval_fail(c, "the random op's enclosing loop iteration is not known here "
                                "(line %d)", owner->line);
        iterations[depth++] = it->u.i;
    }
    uint64_t stream = mix((uint64_t)(uint32_t)c->node->line);
    for (int d = depth - 1; d >= 0; d--)
        stream = mix(stream ^ (uint64_t)iterations[d]);
    *key = (TensorRandomKey){random_seed, stream};
    return true;
}

static bool no_generator(EvalCall *c, int i)
{
    if (i < c->nargs && !eval_is_none(c, i))
        return eval_fail(c, "a Generator argument is not supported: draws use the run's --seed");
    return true;
}

static bool out_drawn(EvalCall *c, Tensor *t)
{
    return t ? eval_out_tensor(c, 0, t) : eval_fail_kernel(c, "random draw failed");
}

static bool size_arg(EvalCall *c, int i, int64_t *sizes, int *n)
{
    if (!eval_arg_ints(c, i, sizes, TENSOR_MAX_DIMS, n))
        return false;
    for (int k = 0; k < *n; k++)
        if (sizes[k] < 0)
            return eval_fail(c, "Trying to create tensor with negative dimension %lld",
                             (long long)sizes[k]);
    return true;
}

/* The dtype at argument i (absent or None: fallback). */
static bool dtype_at(EvalCall *c, int i, TensorDType fallback, TensorDType *d)
{
    int dt = -1;
    if (i < c->nargs && !eval_arg_dtype_opt(c, i, &dt))
        return false;
    *d = dt < 0 ? fallback : (TensorDType)dt;
    return true;
}

/* rand/randn(int[] size, [Generator? generator,] [str[]? names,] ScalarType?
 * dtype, Layout?, Device?, bool? pin): 6 arguments have a generator or
 * names, 7 both; each must be None. */
static bool sized_float(EvalCall *c, bool normal)
{
    int64_t sizes[TENSOR_MAX_DIMS];
    int n;
    TensorDType d;
    TensorRandomKey key;
    int extra = c->nargs > 5 ? c->nargs - 5 : 0;
    for (int i = 1; i <= extra; i++)
        if (!eval_is_none(c, i))
            return eval_fail(c, "a Generator or names argument is not supported: draws use the run's --seed");
    if (!eval_nargs(c, 1, 7) || !size_arg(c, 0, sizes, &n) ||
        !dtype_at(c, 1 + extra, dtype_default_float(), &d) || !draw_key(c, &key))
        return false;
    return out_drawn(c, normal ? tensor_random_normal(key, d, n, sizes, 0, 1)
                               : tensor_random_uniform(key, d, n, sizes, 0, 1));
}
bool eval_op_rand(EvalCall *c) { return sized_float(c, false); }
bool eval_op_randn(EvalCall *c) { return sized_float(c, true); }

/* rand_like/randn_like(Tensor self, ScalarType? dtype, Layout?, Device?,
 * bool? pin, MemoryFormat?) */
static bool like_float(EvalCall *c, bool normal)
{
    Tensor *self;
    TensorDType d;
    TensorRandomKey key;
    if (!eval_nargs(c, 1, 6) || !eval_arg_tensor(c, 0, &self) || !dtype_at(c, 1, self->dtype, &d) ||
        !draw_key(c, &key))
        return false;
    return out_drawn(c, normal ? tensor_random_normal(key, d, self->ndim, self->sizes, 0, 1)
                               : tensor_random_uniform(key, d, self->ndim, self->sizes, 0, 1));
}
bool eval_op_rand_like(EvalCall *c) { return like_float(c, false); }
bool eval_op_randn_like(EvalCall *c) { return like_float(c, true); }

/* randint(int high, int[] size, [Generator?,] ScalarType? dtype, ...) or
 * randint(int low, int high, int[] size, [Generator?,] ScalarType? dtype, ...):
 * told apart by whether argument 1 is the size list. */
bool eval_op_randint(EvalCall *c)
{
    int64_t low = 0, high, sizes[TENSOR_MAX_DIMS];
    int n;
    TensorDType d;
    TensorRandomKey key;
    if (!eval_nargs(c, 2, 8))
        return false;
    bool has_low = eval_kind(c, 1) != RT_LIST;
    int size_at = has_low ? 2 : 1;
    int rest = c->nargs - size_at - 1;     /* [generator,] dtype, layout, device, pin */
    bool with_generator = rest == 5;
    if ((has_low && !eval_arg_int(c, 0, &low)) || !eval_arg_int(c, has_low ? 1 : 0, &high) ||
        !size_arg(c, size_at, sizes, &n) || (with_generator && !no_generator(c, size_at + 1)) ||
        !dtype_at(c, size_at + 1 + with_generator, DT_I64, &d) || !draw_key(c, &key))
        return false;
    return out_drawn(c, tensor_random_int(key, d, n, sizes, low, high));
}

/* randint_like(Tensor self, int high, ScalarType? dtype, Layout?, Device?,
 * bool? pin, MemoryFormat?) or randint_like(self, int low, int high, ...):
 * told apart by the count (7 or 8) or, when shorter, by argument 2 being an
 * int. */
bool eval_op_randint_like(EvalCall *c)
{
    Tensor *self;
    int64_t low = 0, high;
    TensorDType d;
    TensorRandomKey key;
    if (!eval_nargs(c, 2, 8) || !eval_arg_tensor(c, 0, &self))
        return false;
    bool has_low = c->nargs == 8 || (c->nargs > 2 && c->nargs < 7 && eval_kind(c, 2) == RT_INT);
    if ((has_low && !eval_arg_int(c, 1, &low)) || !eval_arg_int(c, has_low ? 2 : 1, &high) ||
        !dtype_at(c, has_low ? 3 : 2, self->dtype, &d) || !draw_key(c, &key))
        return false;
    return out_drawn(c, tensor_random_int(key, d, self->ndim, self->sizes, low, high));
}

/* randperm(int n, [Generator?,] ScalarType? dtype=int64, Layout?, Device?, bool? pin) */
bool eval_op_randperm(EvalCall *c)
{
    int64_t n;
    TensorDType d;
    TensorRandomKey key;
    bool with_generator = c->nargs == 6;
    if (!eval_nargs(c, 1, 6) || !eval_arg_int(c, 0, &n) || (with_generator && !no_generator(c, 1)) ||
        !dtype_at(c, with_generator ? 2 : 1, DT_I64, &d) || !draw_key(c, &key))
        return false;
    return out_drawn(c, tensor_random_perm(key, n, d));
}

/* multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator?) */
bool eval_op_multinomial(EvalCall *c)
{
    Tensor *probs;
    int64_t num_samples;
    bool replacement = false, present;
    TensorRandomKey key;
    if (!eval_nargs(c, 2, 4) || !eval_arg_tensor(c, 0, &probs) || !eval_arg_int(c, 1, &num_samples) ||
        (c->nargs > 2 && !eval_arg_bool_opt(c, 2, &replacement, &present)) || !no_generator(c, 3) ||
        !draw_key(c, &key))
        return false;
    return out_drawn(c, tensor_random_multinomial(key, probs, num_samples, replacement));
}

/* bernoulli(Tensor self, *, Generator?) draws with self's probabilities;
 * bernoulli(Tensor self, float p, *, Generator?) with p, in self's shape. */
bool eval_op_bernoulli(EvalCall *c)
{
    Tensor *self;
    double p = 0;
    TensorRandomKey key;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self))
        return false;
    bool scalar_p = c->nargs == 3 || (c->nargs == 2 && rt_is_number(c->args[1]));
    if ((scalar_p && !eval_arg_double(c, 1, &p)) || !no_generator(c, scalar_p ? 2 : 1) ||
        !draw_key(c, &key))
        return false;
    if (!dtype_is_float(self->dtype) && !scalar_p)
        return eval_fail(c, "bernoulli expects a floating point tensor of probabilities, got %s",
                         dtype_name(self->dtype));
    return out_drawn(c, tensor_random_bernoulli(key, scalar_p ? NULL : self, p, self->dtype,
                                                self->ndim, self->sizes));
}

/* A number or a tensor at argument i. */
static bool number_or_tensor(EvalCall *c, int i, Tensor **t, double *v)
{
    *t = NULL;
    if (eval_kind(c, i) == RT_TENSOR)
        return eval_arg_tensor(c, i, t);
    return eval_arg_double(c, i, v);
}

/* normal(Tensor mean, Tensor std), normal(Tensor mean, float std=1),
 * normal(float mean, Tensor std) (each with Generator?), normal(float mean,
 * float std, int[] size, *, Generator?, ScalarType? dtype, Layout?, Device?,
 * bool? pin), and the method normal(Tensor self, float mean, float std,
 * Generator?) (normal_'s functional form: self's shape and dtype). */
bool eval_op_normal(EvalCall *c)
{
    Tensor *mean_t, *std_t = NULL;
    double mean = 0, std = 1;
    TensorRandomKey key;
    if (!eval_nargs(c, 1, 8) || !number_or_tensor(c, 0, &mean_t, &mean))
        return false;
    if (c->nargs >= 3 && eval_kind(c, 2) == RT_LIST) {
        int64_t sizes[TENSOR_MAX_DIMS];
        int n;
        TensorDType d;
        if (mean_t || !eval_arg_double(c, 1, &std) || !size_arg(c, 2, sizes, &n) ||
            !no_generator(c, 3) || !dtype_at(c, 4, dtype_default_float(), &d) || !draw_key(c, &key))
            return mean_t ? eval_fail(c, "normal with a size takes float mean and std") : false;
        return out_drawn(c, tensor_random_normal(key, d, n, sizes, mean, std));
    }
    if (mean_t && c->nargs >= 3 && rt_is_number(c->args[2])) {
        if (!eval_arg_double(c, 1, &mean) || !eval_arg_double(c, 2, &std) || !no_generator(c, 3) ||
            !draw_key(c, &key))
            return false;
        return out_drawn(c, tensor_random_normal(key, mean_t->dtype, mean_t->ndim, mean_t->sizes, mean, std));
    }
    if ((c->nargs > 1 && !number_or_tensor(c, 1, &std_t, &std)) || !no_generator(c, 2) ||
        !draw_key(c, &key))
        return false;
    if (!mean_t && !std_t)
        return eval_fail(c, "normal of two floats needs a size");
    return out_drawn(c, tensor_random_normal_tensors(key, mean_t, mean, std_t, std));
}

/* dropout(Tensor input, float p, bool train) */
bool eval_op_dropout(EvalCall *c)
{
    Tensor *x;
    double p;
    bool train;
    TensorRandomKey key;
    if (!eval_nargs(c, 3, 3) || !eval_arg_tensor(c, 0, &x) || !eval_arg_double(c, 1, &p) ||
        !eval_arg_bool(c, 2, &train))
        return false;
    if (p < 0 || p > 1)
        return eval_fail(c, "dropout probability has to be between 0 and 1, but got %g", p);
    if (!train || p == 0 || tensor_numel(x) == 0)
        return eval_out_arg(c, 0, 0);
    if (!draw_key(c, &key))
        return false;
    return out_drawn(c, tensor_random_dropout(key, x, p));
}

/* rrelu(Tensor self, Scalar lower=1/8, Scalar upper=1/3, bool training=False,
 * Generator?): in evaluation mode the slope is (lower + upper) / 2. */
bool eval_op_rrelu(EvalCall *c)
{
    Tensor *x;
    double lower = 1.0 / 8, upper = 1.0 / 3;
    bool training = false, present;
    TensorRandomKey key;
    if (!eval_nargs(c, 1, 5) || !eval_arg_tensor(c, 0, &x) ||
        (c->nargs > 1 && !eval_arg_double(c, 1, &lower)) ||
        (c->nargs > 2 && !eval_arg_double(c, 2, &upper)) ||
        (c->nargs > 3 && !eval_arg_bool_opt(c, 3, &training, &present)) || !no_generator(c, 4))
        return false;
    if (!training) {
        double slope = (lower + upper) / 2;
        return out_drawn(c, tensor_random_rrelu((TensorRandomKey){0, 0}, x, slope, slope));
    }
    if (!draw_key(c, &key))
        return false;
    return out_drawn(c, tensor_random_rrelu(key, x, lower, upper));
}

/* The in-place draws write a fresh draw into self (copy_ casts it). */
static bool write_into_self(EvalCall *c, Tensor *self, Tensor *drawn)
{
    if (!drawn)
        return eval_fail_kernel(c, "random draw failed");
    bool done = tensor_copy_(self, drawn);
    tensor_release(drawn);
    return eval_out_self(c, done, "cannot write the draw into self");
}

/* uniform_(Tensor self, float from=0, float to=1, *, Generator?) and
 * normal_(Tensor self, float mean=0, float std=1, *, Generator?) */
static bool fill_float(EvalCall *c, bool normal)
{
    Tensor *self;
    double a = 0, b = 1;
    TensorRandomKey key;
    if (!eval_nargs(c, 1, 4) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !eval_arg_double(c, 1, &a)) || (c->nargs > 2 && !eval_arg_double(c, 2, &b)) ||
        !no_generator(c, 3) || !draw_key(c, &key))
        return false;
    return write_into_self(c, self, normal ? tensor_random_normal(key, self->dtype, self->ndim, self->sizes, a, b)
                                           : tensor_random_uniform(key, self->dtype, self->ndim, self->sizes, a, b));
}
bool eval_op_uniform_(EvalCall *c) { return fill_float(c, false); }
bool eval_op_normal_(EvalCall *c) { return fill_float(c, true); }

/* bernoulli_(Tensor self, Tensor p, *, Generator?) / bernoulli_(Tensor self,
 * float p=0.5, *, Generator?) */
bool eval_op_bernoulli_(EvalCall *c)
{
    Tensor *self, *p_t = NULL;
    double p = 0.5;
    TensorRandomKey key;
    if (!eval_nargs(c, 1, 3) || !eval_arg_tensor(c, 0, &self) ||
        (c->nargs > 1 && !number_or_tensor(c, 1, &p_t, &p)) || !no_generator(c, 2) || !draw_key(c, &key))
        return false;
    Tensor *p_full = p_t ? tensor_expand(p_t, self->ndim, self->sizes) : NULL;
    if (p_t && !p_full)
        return eval_fail_kernel(c, "p does not broadcast to self");
    Tensor *drawn = tensor_random_bernoulli(key, p_full, p, self->dtype, self->ndim, self->sizes);
    tensor_release(p_full);
    return write_into_self(c, self, drawn);
}
