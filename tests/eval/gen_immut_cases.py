#!/usr/bin/python3
"""Reference cases for the immut:: ops (eval/ops_immut.c).

For every view kind, random shapes and arguments (negative dims and indices,
slice steps, None bounds, -1 sizes) and a source that is sometimes the
region's exact shape, sometimes a broadcasting shape, a Python number, or
another dtype:

    access:  aten::<view>(root, args).clone()                 (PyTorch)
    assign:  r = root.clone(); aten::<view>(r, args).copy_(src); r   (PyTorch)

Regions that name one root element several times (expand, repeat) cannot be
written in PyTorch (copy_ refuses); there the expected assign is the
sequential meaning TensorSSA gives them, computed here element by element:
walk the region in row-major order, write each source element to the root
element it names, the last write wins.

Output: immut_cases.txt (one case per line, read by test_immut_ops.c) and
immut_cases.safetensors (every tensor the cases use). Run with Debian's
python3-torch:  /usr/bin/python3 tests/eval/gen_immut_cases.py
"""
import itertools
import json
import os
import random
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
random.seed(20240611)
torch.manual_seed(20240611)

tensors = {}     # name -> tensor
lines = []

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64",
          torch.int32: "I32", torch.bool: "BOOL"}


def put(name, t):
    tensors[name] = t.detach().clone().contiguous()
    return "t:" + name


def rand_shape(rank, lo=1, hi=4):
    return [random.randint(lo, hi) for _ in range(rank)]


def rand_root(shape, dtype=torch.float32):
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    if dtype in (torch.int64, torch.int32):
        return torch.randint(-9, 10, shape, dtype=dtype)
    return torch.randn(shape, dtype=dtype)


def rand_src(region_shape, root_dtype):
    """A source for writing a region: its exact shape, a broadcasting shape,
    a Python number, or a tensor of another dtype."""
    kind = random.choice(["exact", "exact", "broadcast", "number", "dtype"])
    if kind == "number":
        if root_dtype in (torch.float32, torch.float64):
            return random.choice([2.5, -1.25, 3])
        return random.randint(-5, 5)
    shape = list(region_shape)
    if kind == "broadcast" and shape:
        shape = [1 if random.random() < 0.5 else s for s in shape]
        drop = random.randint(0, len(shape))
        shape = shape[drop:]
    dtype = root_dtype
    if kind == "dtype":
        dtype = torch.float64 if root_dtype != torch.float64 else torch.float32
        if root_dtype in (torch.int64, torch.int32):
            dtype = torch.int32 if root_dtype == torch.int64 else torch.int64
    return rand_root(shape, dtype)


def arg(v):
    if v is None:
        return "n"
    if isinstance(v, bool):
        return "b:%d" % int(v)
    if isinstance(v, int):
        return "i:%d" % v
    if isinstance(v, float):
        return "f:%r" % v
    if isinstance(v, (list, tuple)):
        return "l:" + ",".join(str(int(x)) for x in v)
    raise TypeError(v)


def src_token(name, src):
    if isinstance(src, torch.Tensor):
        return put(name + ".src", src)
    return arg(src)


def sequential_assign(root, src, positions):
    """root with src written element by element: positions(idx) gives the
    root index named by region index idx; row-major, last write wins."""
    out = root.clone()
    region_shape = positions.shape
    srcb = (src if isinstance(src, torch.Tensor) else torch.tensor(src)).broadcast_to(region_shape)
    for idx in itertools.product(*[range(s) for s in region_shape]):
        out[positions.index(idx)] = srcb[idx].to(out.dtype)
    return out


class ExpandPositions:
    def __init__(self, root_shape, out_shape):
        self.shape = out_shape
        self.root_shape = root_shape

    def index(self, idx):
        lead = len(self.shape) - len(self.root_shape)
        return tuple(0 if self.root_shape[d] == 1 else idx[lead + d]
                     for d in range(len(self.root_shape)))


class RepeatPositions:
    def __init__(self, root_shape, reps):
        self.root_shape = root_shape
        lead = len(reps) - len(root_shape)
        padded = [1] * lead + list(root_shape)
        self.shape = [p * r for p, r in zip(padded, reps)]
        self.lead = lead

    def index(self, idx):
        return tuple(idx[self.lead + d] % self.root_shape[d] for d in range(len(self.root_shape)))


def case(name, op, root, args, view_fn, overlap=None):
    """One access/assign pair. view_fn(t) is the aten view of t; overlap, if
    given, is the positions object of a region that repeats root elements."""
    region = view_fn(root)
    src = rand_src(list(region.shape), root.dtype)
    access = region.clone()
    if overlap is None:
        r = root.clone()
        view_fn(r).copy_(src if isinstance(src, torch.Tensor) else torch.tensor(src))
        assign = r
    else:
        assign = sequential_assign(root, src, overlap)
    tokens = [name, op, "root=" + put(name + ".root", root), "src=" + src_token(name, src)]
    tokens += [a if isinstance(a, str) and a.startswith(("t:", "T:")) else arg(a) for a in args]
    put(name + ".access", access)
    put(name + ".assign", assign)
    lines.append(" ".join(tokens))


def neg(d, n):
    """d or its negative spelling, at random."""
    return d - n if random.random() < 0.5 else d


def dtype_pick():
    return random.choice([torch.float32, torch.float32, torch.float64, torch.int64, torch.bool])


for k in range(8):
    rank = random.randint(1, 4)
    shape = rand_shape(rank)
    root = rand_root(shape, dtype_pick())
    d = random.randrange(rank)
    i = random.randrange(shape[d])
    dd, ii = neg(d, rank), neg(i, shape[d])
    case("select%d" % k, "immut::select", root, [dd, ii], lambda t, dd=dd, ii=ii: t.select(dd, ii))

for k in range(10):
    rank = random.randint(1, 3)
    shape = rand_shape(rank, 2, 6)
    root = rand_root(shape, dtype_pick())
    d = random.randrange(rank)
    n = shape[d]
    start = random.choice([None, random.randint(-n, n - 1)])
    end = random.choice([None, random.randint(-n, n + 2), 1000])
    step = random.randint(1, 3)
    dd = neg(d, rank)

    def sl(t, dd=dd, start=start, end=end, step=step):
        idx = [slice(None)] * t.dim()
        idx[dd] = slice(start, end, step)
        return t[tuple(idx)]
    region = sl(root)
    if region.numel() == 0:
        continue
    case("slice%d" % k, "immut::slice", root, [dd, start, end, step], sl)

for k in range(6):
    rank = random.randint(1, 3)
    shape = rand_shape(rank, 2, 6)
    root = rand_root(shape, dtype_pick())
    d = random.randrange(rank)
    n = shape[d]
    length = random.randint(1, n)
    start = random.randint(0, n - length)
    if random.random() < 0.4:
        start -= n
    dd = neg(d, rank)
    case("narrow%d" % k, "immut::narrow", root, [dd, start, length],
         lambda t, dd=dd, s=start, l=length: t.narrow(dd, s, l))

for k in range(6):
    rank = random.randint(1, 4)
    shape = [random.choice([1, 1, 2, 3]) for _ in range(rank)]
    root = rand_root(shape, dtype_pick())
    if k % 2 == 0:
        case("squeeze%d" % k, "immut::squeeze", root, [], lambda t: t.squeeze())
    else:
        d = neg(random.randrange(rank), rank)
        case("squeeze%d" % k, "immut::squeeze", root, [d], lambda t, d=d: t.squeeze(d))

for k in range(5):
    rank = random.randint(0, 3)
    shape = rand_shape(rank)
    root = rand_root(shape, dtype_pick())
    d = random.randint(-rank - 1, rank)
    case("unsqueeze%d" % k, "immut::unsqueeze", root, [d], lambda t, d=d: t.unsqueeze(d))

for k in range(6):
    shape = rand_shape(random.randint(1, 3), 1, 4)
    root = rand_root(shape, dtype_pick())
    numel = root.numel()
    divisors = [x for x in range(1, numel + 1) if numel % x == 0]
    a = random.choice(divisors)
    sizes = [a, numel // a]
    if random.random() < 0.5:
        sizes[random.randrange(2)] = -1
    op = "immut::view" if k % 2 == 0 else "immut::reshape"
    fn = (lambda t, s=sizes: t.view(s)) if k % 2 == 0 else (lambda t, s=sizes: t.reshape(s))
    case("%s%d" % (op[7:], k), op, root, [sizes], fn)

for k in range(6):
    rank = random.randint(1, 3)
    shape = [random.choice([1, 2, 3]) for _ in range(rank)]
    root = rand_root(shape, dtype_pick())
    lead = [random.randint(1, 3) for _ in range(random.randint(0, 2))]
    sizes = lead + [random.randint(2, 3) if s == 1 else random.choice([s, -1]) for s in shape]
    out_shape = list(root.expand(sizes).shape)
    if k % 2 == 0:
        case("expand%d" % k, "immut::expand", root, [sizes, False],
             lambda t, s=sizes: t.expand(s), ExpandPositions(shape, out_shape))
    else:
        other = torch.zeros(out_shape)
        tok = put("expand%d.other" % k, other)
        case("expand_as%d" % k, "immut::expand_as", root, [tok],
             lambda t, o=other: t.expand_as(o), ExpandPositions(shape, out_shape))

for k in range(5):
    rank = random.randint(1, 3)
    shape = rand_shape(rank, 1, 3)
    root = rand_root(shape, dtype_pick())
    reps = [random.randint(1, 3) for _ in range(rank + random.randint(0, 1))]
    pos = RepeatPositions(shape, reps)
    case("repeat%d" % k, "immut::repeat", root, [reps], lambda t, r=reps: t.repeat(r), pos)

for k in range(5):
    rank = random.randint(1, 4)
    shape = rand_shape(rank)
    root = rand_root(shape, dtype_pick())
    perm = list(range(rank))
    random.shuffle(perm)
    perm = [neg(p, rank) for p in perm]
    case("permute%d" % k, "immut::permute", root, [perm], lambda t, p=perm: t.permute(p))

for k in range(5):
    rank = random.randint(1, 4)
    shape = rand_shape(rank)
    root = rand_root(shape, dtype_pick())
    a, b = neg(random.randrange(rank), rank), neg(random.randrange(rank), rank)
    case("transpose%d" % k, "immut::transpose", root, [a, b], lambda t, a=a, b=b: t.transpose(a, b))

for k in range(3):
    shape = rand_shape(1 + k % 2)
    root = rand_root(shape, dtype_pick())
    case("t%d" % k, "immut::t", root, [], lambda t: t.t())

for k in range(6):
    rank = random.randint(2, 3)
    shape = rand_shape(rank, 2, 4)
    root = rand_root(shape, dtype_pick())
    d1 = random.randrange(rank)
    d2 = random.choice([d for d in range(rank) if d != d1])
    off = random.randint(-1, 1)
    d1, d2 = neg(d1, rank), neg(d2, rank)
    if root.diagonal(off, d1, d2).numel() == 0:
        continue
    case("diagonal%d" % k, "immut::diagonal", root, [off, d1, d2],
         lambda t, o=off, a=d1, b=d2: t.diagonal(o, a, b))

for k in range(6):
    rank = random.randint(1, 3)
    shape = rand_shape(rank, 2, 5)
    root = rand_root(shape, dtype_pick())
    if k % 2 == 0:
        # long index into dim 0 (distinct entries, some negative), dim 1 open
        n = shape[0]
        rows = random.sample(range(n), random.randint(1, n))
        rows = [r - n if random.random() < 0.3 else r for r in rows]
        idx = [torch.tensor(rows, dtype=torch.int64)]
    else:
        mask = torch.rand(shape[:1 + (rank > 1 and k % 4 == 1)]) > 0.4
        idx = [mask]
    names = []
    for j, ix in enumerate(idx):
        names.append(put("index%d.idx%d" % (k, j), ix)[2:])
    tok = "T:" + ",".join(names)

    def index_view(t, idx=idx):
        return t[tuple(idx)]
    region = index_view(root)
    src = rand_src(list(region.shape), root.dtype)
    access = region.clone()
    r = root.clone()
    # index_put_ wants the source in the root's dtype; immut::index_rev casts
    # it, as every assign does.
    r.index_put_(tuple(idx), src.to(r.dtype) if isinstance(src, torch.Tensor)
                 else torch.tensor(src, dtype=r.dtype))
    name = "index%d" % k
    lines.append(" ".join([name, "immut::index", "root=" + put(name + ".root", root),
                           "src=" + src_token(name, src), tok]))
    put(name + ".access", access)
    put(name + ".assign", r)

# immut::assign: the whole root replaced (broadcast, cast).
for k in range(4):
    shape = rand_shape(random.randint(0, 3))
    root = rand_root(shape, dtype_pick())
    src = rand_src(shape, root.dtype)
    r = root.clone()
    r.copy_(src if isinstance(src, torch.Tensor) else torch.tensor(src))
    name = "assign%d" % k
    lines.append(" ".join([name, "immut::assign", "root=" + put(name + ".root", root),
                           "src=" + src_token(name, src)]))
    put(name + ".assign", r)


def write_safetensors(path, named):
    header, blobs, offset = {}, [], 0
    for name in sorted(named):
        t = named[name]
        data = (t.to(torch.uint8) if t.dtype == torch.bool else t).numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


write_safetensors(os.path.join(HERE, "immut_cases.safetensors"), tensors)
with open(os.path.join(HERE, "immut_cases.txt"), "w") as f:
    f.write("# generated by gen_immut_cases.py (PyTorch %s); one case per line:\n" % torch.__version__)
    f.write("# NAME OP root=t:T src=TOKEN ARGS...; tokens: i:INT f:FLOAT b:0|1 n (None)\n")
    f.write("# l:INT,INT (int list) t:NAME (tensor) T:NAME,NAME (tensor list);\n")
    f.write("# expected NAME.access (access ops) and NAME.assign in immut_cases.safetensors\n")
    for line in lines:
        f.write(line + "\n")
print("%d cases, %d tensors" % (len(lines), len(tensors)))
