#!/usr/bin/python3
"""Generates the committed test files for the .npy and safetensors readers
and writers (tests/tensor/io/test_npy.c, test_safetensors.c, npy_compare_test.sh).

    /usr/bin/python3 tests/tensor/io/gen_files.py

numpy (and torch, for some data) is the oracle: valid files are written by
numpy.save / numpy.lib.format, or by hand and then checked to load with
numpy.load; each manifest lists what numpy says the file holds. Malformed
files are made by damaging good ones, each with the words its error message
must contain.

Outputs (all small):
  npy/valid/*.npy        + npy/valid.txt        FILE DTYPE [SHAPE] VALUES...
  npy/bad/*.npy          + npy/bad.txt          FILE<TAB>expected message words
  npy/write/*.npy        numpy.save of arrays that test_npy.c builds itself
  safetensors/valid/...  + safetensors/valid.txt (see write_safetensors_manifest)
  safetensors/bad/...    + safetensors/bad.txt
  compare/*.npy          inputs for npy_compare_test.sh
"""
import io
import json
import os
import shutil
import struct

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def out_dir(*parts):
    path = os.path.join(HERE, *parts)
    os.makedirs(path, exist_ok=True)
    return path


def clean(*parts):
    path = os.path.join(HERE, *parts)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)


# ------------------------------------------------------------------ helpers

DTYPE_NAMES = {
    np.dtype('float32'): 'float32', np.dtype('float64'): 'float64',
    np.dtype('int64'): 'int64', np.dtype('int32'): 'int32',
    np.dtype('int16'): 'int16', np.dtype('int8'): 'int8',
    np.dtype('uint8'): 'uint8', np.dtype('bool'): 'bool',
}


def value_text(x, dtype):
    if dtype == np.dtype('bool'):
        return '1' if x else '0'
    if dtype.kind == 'f':
        return repr(float(x))     # shortest text that round-trips; nan, inf, -0.0 included
    return str(int(x))


def manifest_values(arr):
    """'DTYPE [SHAPE] v0 v1 ...' in row-major order, as numpy sees arr."""
    arr = np.asarray(arr)
    dtype = arr.dtype.newbyteorder('=') if arr.dtype.byteorder == '>' else arr.dtype
    shape = '[' + ','.join(str(d) for d in arr.shape) + ']'
    values = [value_text(x, dtype) for x in arr.reshape(-1).tolist()]
    return ' '.join([DTYPE_NAMES[np.dtype(dtype.str.replace('>', '<'))], shape] + values)


def npy_bytes(arr, version=None):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(arr), version=version, allow_pickle=True)
    return buf.getvalue()


def handmade_npy(header, data, version=1, pad=True):
    """A .npy file with the header text given verbatim (padded like numpy if pad)."""
    header = header.encode('utf8' if version == 3 else 'latin1')
    prefix_len = 10 if version == 1 else 12
    if pad:
        padlen = 64 - (prefix_len + len(header) + 1) % 64
        header = header + b' ' * padlen + b'\n'
    length = struct.pack('<H' if version == 1 else '<I', len(header))
    return b'\x93NUMPY' + bytes([version, 0]) + length + header + data


def load_npy_bytes(data):
    return np.load(io.BytesIO(data), allow_pickle=False)


# ------------------------------------------------------------------ valid .npy

def gen_valid_npy():
    clean('npy', 'valid')
    lines = []

    def add(name, data, expected=None):
        """Commits `data` and what numpy reads from it (or `expected`)."""
        with open(os.path.join(HERE, 'npy', 'valid', name), 'wb') as f:
            f.write(data)
        arr = load_npy_bytes(data) if expected is None else expected
        if expected is not None:
            np.testing.assert_array_equal(load_npy_bytes(data), expected)
        lines.append(name + ' ' + manifest_values(arr))

    special = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-45, 3.4028235e38,
                        1.0 / 3.0], dtype=np.float32).reshape(2, 5)
    add('f4_v1.npy', npy_bytes(special))
    f8 = np.array([np.pi, -np.e, 5e-324, 1.7976931348623157e308, np.nan, -0.0], dtype=np.float64)
    add('f8_v1.npy', npy_bytes(f8))
    i8 = np.array([[np.iinfo(np.int64).min, -1, 0], [1, 2**40, np.iinfo(np.int64).max]],
                  dtype=np.int64)
    add('i8_v1.npy', npy_bytes(i8))
    add('i4_v1.npy', npy_bytes(np.array([[[-2147483648, 7]], [[2147483647, -9]]], dtype=np.int32)))
    add('i2_v1.npy', npy_bytes(np.array([-32768, -1, 0, 32767], dtype=np.int16)))
    add('i1_v1.npy', npy_bytes(np.array([-128, -1, 0, 127], dtype=np.int8)))
    add('u1_v1.npy', npy_bytes(np.array([[0, 1, 128, 255]], dtype=np.uint8)))
    add('b1_v1.npy', npy_bytes(np.array([[True, False, True], [False, False, True]])))

    # Format versions 2.0 and 3.0 (3.0: utf8 header) of the same arrays.
    add('f4_v2.npy', npy_bytes(special, version=(2, 0)))
    add('i8_v2.npy', npy_bytes(i8, version=(2, 0)))
    add('f4_v3.npy', npy_bytes(special, version=(3, 0)))
    add('b1_v3.npy', npy_bytes(np.array([False, True]), version=(3, 0)))

    # 0-d and empty arrays.
    add('f4_0d.npy', npy_bytes(np.array(3.5, dtype=np.float32)))
    add('i8_0d.npy', npy_bytes(np.array(-42, dtype=np.int64)))
    add('f4_empty.npy', npy_bytes(np.zeros((0,), dtype=np.float32)))
    add('i4_empty_3d.npy', npy_bytes(np.zeros((2, 0, 3), dtype=np.int32)))
    add('b1_16d.npy', npy_bytes(np.ones((1,) * 15 + (2,), dtype=np.bool_)))

    # Data made by torch, saved by numpy (what the corpus generator does).
    gen = torch.Generator().manual_seed(7)
    add('torch_randn.npy', npy_bytes(torch.randn(3, 4, generator=gen).numpy()))
    add('torch_long.npy', npy_bytes(torch.arange(-3, 3).reshape(2, 3).numpy()))

    # Hand-written headers: other key orders, spacing, quotes, trailing commas,
    # Python 2 longs, native and 1-byte byte orders. numpy.load checks each.
    six = np.arange(6, dtype=np.float32).reshape(2, 3)
    add('hand_key_order.npy',
        handmade_npy("{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}", six.tobytes()))
    add('hand_no_spaces.npy',
        handmade_npy("{'descr':'<f4','fortran_order':False,'shape':(2,3)}", six.tobytes()))
    add('hand_wide_spaces.npy',
        handmade_npy("{ 'descr' :\t'<f4' ,\n 'fortran_order' : False , 'shape' : ( 2 , 3 , ) , }",
                     six.tobytes()))
    add('hand_double_quotes.npy',
        handmade_npy('{"descr": "<f4", "fortran_order": False, "shape": (2, 3)}', six.tobytes()))
    add('hand_long_dims.npy',
        handmade_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }", six.tobytes()))
    add('hand_tuple_1.npy',
        handmade_npy("{'descr': '<i8', 'fortran_order': False, 'shape': (3,)}",
                     np.array([4, 5, 6], dtype=np.int64).tobytes()))
    add('hand_0d.npy',
        handmade_npy("{'descr': '<f8', 'fortran_order': False, 'shape': ()}",
                     np.array(2.5).tobytes()))
    add('hand_native_order.npy',
        handmade_npy("{'descr': '=f4', 'fortran_order': False, 'shape': (2, 3)}", six.tobytes()))
    add('hand_big_endian_byte.npy',
        handmade_npy("{'descr': '>u1', 'fortran_order': False, 'shape': (3,)}", bytes([1, 2, 250])))
    add('hand_no_padding.npy',
        handmade_npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2,)}",
                     np.array([-5, 9], dtype=np.int16).tobytes(), pad=False))
    # Fortran order with a single long dim stores the same bytes as C order.
    add('hand_fortran_1d.npy',
        handmade_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 4, 1)}",
                     np.arange(4, dtype=np.float32).tobytes()))
    # numpy reads any nonzero byte of a bool array as True.
    add('hand_bool_bytes.npy',
        handmade_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (4,)}", bytes([0, 1, 2, 255])),
        expected=np.array([False, True, True, True]))

    with open(os.path.join(HERE, 'npy', 'valid.txt'), 'w') as f:
        f.write('# FILE DTYPE [SHAPE] VALUES... (row-major), from numpy.load; see gen_files.py\n')
        f.write('\n'.join(lines) + '\n')


# ------------------------------------------------------------------ bad .npy

def gen_bad_npy():
    clean('npy', 'bad')
    lines = []

    def add(name, data, words):
        with open(os.path.join(HERE, 'npy', 'bad', name), 'wb') as f:
            f.write(data)
        lines.append(name + '\t' + words)

    good = npy_bytes(np.arange(6, dtype=np.float32).reshape(2, 3))
    data_at = len(good) - 24            # where the 6 floats start
    add('empty.npy', b'', 'empty')
    add('trunc_magic.npy', good[:4], 'truncated')
    add('trunc_version.npy', good[:7], 'truncated')
    add('trunc_length.npy', good[:9], 'truncated')
    add('trunc_header.npy', good[:40], 'header length')
    add('trunc_data.npy', good[:data_at + 10], 'shorter than the header says')
    add('trunc_data_empty.npy', good[:data_at], 'shorter than the header says')
    add('extra_data.npy', good + b'\0\0\0\0', 'longer than the header says')
    add('bad_magic.npy', b'\x93NUMPX' + good[6:], 'not a .npy file')
    add('text_file.npy', b'descr,shape\nf4,2\n', 'not a .npy file')
    add('version_4.npy', good[:6] + b'\x04\x00' + good[8:], 'unsupported .npy format version 4.0')
    add('version_1_1.npy', good[:6] + b'\x01\x01' + good[8:], 'unsupported .npy format version 1.1')
    add('header_len_past_end.npy', good[:8] + struct.pack('<H', 5000) + good[10:],
        'header length is 5000 bytes')
    add('header_len_past_end_v2.npy', npy_bytes(np.arange(3.0), version=(2, 0))[:8] +
        struct.pack('<I', 0xffffffff) + npy_bytes(np.arange(3.0), version=(2, 0))[12:],
        'header length is 4294967295 bytes')

    add('big_endian.npy', npy_bytes(np.arange(4, dtype='>f4')), "big-endian data ('>f4')")
    add('big_endian_i8.npy', npy_bytes(np.arange(4, dtype='>i8')), "big-endian data ('>i8')")
    fortran = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    add('fortran.npy', npy_bytes(fortran), 'Fortran-order')
    add('object.npy', npy_bytes(np.array([1, 'a', None], dtype=object)), 'object arrays')
    add('unicode.npy', npy_bytes(np.array(['ab', 'c'])), "dtype '<U2' is not supported")
    add('float16.npy', npy_bytes(np.arange(3, dtype=np.float16)), "dtype '<f2' is not supported")
    add('uint16.npy', npy_bytes(np.arange(3, dtype=np.uint16)), "dtype '<u2' is not supported")
    add('complex.npy', npy_bytes(np.arange(3, dtype=np.complex64)), "dtype '<c8' is not supported")
    add('structured.npy', npy_bytes(np.zeros(2, dtype=[('a', '<f4'), ('b', '<i8')])),
        'structured arrays')

    def header(text, nbytes=0, **kw):
        return handmade_npy(text, b'\0' * nbytes, **kw)

    add('huge_shape.npy', header("{'descr': '<f4', 'fortran_order': False, "
                                 "'shape': (1099511627776, 1099511627776)}"),
        'is too large')
    add('huge_bytes.npy', header("{'descr': '<f8', 'fortran_order': False, "
                                 "'shape': (4611686018427387904,)}"),
        'is too large')
    add('huge_dim_digits.npy', header("{'descr': '<f4', 'fortran_order': False, "
                                      "'shape': (1000000000000000000000000000000,)}"),
        'does not fit in 64 bits')
    add('big_but_absent.npy', header("{'descr': '<f4', 'fortran_order': False, "
                                     "'shape': (1000000, 1000000)}", 16),
        'needs 4000000000000 bytes')
    add('zero_dim_huge_rest.npy', header("{'descr': '<f4', 'fortran_order': False, "
                                         "'shape': (0, 4611686018427387904, 4)}"),
        'is too large')
    add('negative_dim.npy', header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}"),
        'negative dimension')
    add('too_many_dims.npy', header("{'descr': '<f4', 'fortran_order': False, 'shape': (%s)}"
                                    % ', '.join(['1'] * 17), 4),
        '17 dimensions; at most 16')
    add('shape_int.npy', header("{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", 12),
        "not the integer 3")
    add('shape_list.npy', header("{'descr': '<f4', 'fortran_order': False, 'shape': [3]}", 12),
        "'shape' must be a tuple of integers")
    add('shape_float.npy', header("{'descr': '<f4', 'fortran_order': False, 'shape': (3.0,)}", 12),
        "'shape' must be a tuple of integers")
    add('fortran_not_bool.npy', header("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}", 12),
        "'fortran_order' must be True or False")
    add('descr_not_string.npy', header("{'descr': 4, 'fortran_order': False, 'shape': (3,)}", 12),
        "'descr' must be a short dtype string")
    add('missing_key.npy', header("{'descr': '<f4', 'shape': (3,)}", 12),
        "missing key 'fortran_order'")
    add('extra_key.npy', header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), "
                                "'extra': 1}", 12),
        "unexpected key 'extra'")
    add('key_not_string.npy', header("{'descr': '<f4', 3: False, 'shape': (3,)}", 12),
        "expected a key ('descr', 'fortran_order' or 'shape') at header byte 17")
    add('duplicate_key.npy', header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                                    "'shape': (3,)}", 12),
        "key 'descr' appears twice")
    add('not_a_dict.npy', header("('<f4', False, (3,))", 12), "expected '{'")
    add('missing_colon.npy', header("{'descr' '<f4', 'fortran_order': False, 'shape': (3,)}", 12),
        "expected ':'")
    add('missing_comma.npy', header("{'descr': '<f4' 'fortran_order': False, 'shape': (3,)}", 12),
        "expected ',' or '}'")
    add('unterminated_string.npy', header("{'descr': '<f4}", 12), 'unterminated string')
    add('unclosed_dict.npy', header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)", 12),
        "expected ',' or '}'")
    add('text_after_dict.npy', header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} x",
                                      12),
        'unexpected text after the header dict')
    add('nul_in_header.npy', header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}\0", 12,
                                    pad=False),
        'unexpected text after the header dict')
    add('deep_nesting.npy', header("{'descr': " + '[' * 100 + ']' * 100 +
                                   ", 'fortran_order': False, 'shape': (3,)}", 12),
        'nested too deeply')

    with open(os.path.join(HERE, 'npy', 'bad.txt'), 'w') as f:
        f.write('# FILE<TAB>words the error message must contain; see gen_files.py\n')
        f.write('\n'.join(lines) + '\n')


# ------------------------------------------------------------------ npy writing

def write_pattern(dtype, n):
    """The values test_npy.c fills tensors with: element i of a fresh tensor."""
    i = np.arange(n)
    if dtype == np.bool_:
        return i % 3 == 0
    if np.dtype(dtype).kind == 'f':
        return (i * 0.25 - 1.5).astype(dtype)
    return ((i * 7) % 11 - 5).astype(dtype)


def gen_write_npy():
    """numpy.save of the arrays test_npy.c writes: its output must match byte for byte."""
    clean('npy', 'write')

    def save(name, arr):
        np.save(os.path.join(HERE, 'npy', 'write', name), arr)

    for name, dtype, shape in [('f4_2x3', np.float32, (2, 3)), ('f8_5', np.float64, (5,)),
                               ('i8_0d', np.int64, ()), ('i4_0x3', np.int32, (0, 3)),
                               ('i2_2x2x2', np.int16, (2, 2, 2)), ('i1_3', np.int8, (3,)),
                               ('u1_4', np.uint8, (4,)), ('b1_2x3', np.bool_, (2, 3)),
                               ('f4_16d', np.float32, (1,) * 15 + (3,)),
                               ('f4_long_dim0', np.float32, (1234567, 0)),
                               # numpy's padding at its two extremes: 1 space, and a
                               # whole extra line of 64 when the header ends aligned.
                               ('f8_pad_1', np.float64, (0, 1, 1, 1, 1) + (10000,) * 4),
                               ('f8_pad_64', np.float64, (0, 1, 1, 1, 10) + (10000,) * 4)]:
        n = int(np.prod(shape))
        save(name + '.npy', write_pattern(dtype, n).reshape(shape))

    # Views of arange(24).reshape(2, 3, 4) (float32): numpy writes them in
    # logical order; test_npy.c makes the same views with strides.
    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    save('view_permute_step.npy', base.transpose(2, 0, 1)[::2])
    save('view_offset.npy', base[1:, ::2, 1])
    save('view_broadcast.npy', np.broadcast_to(np.arange(3, dtype=np.float32), (2, 3)))
    save('view_column.npy', base[:, 1, :].T)


# ------------------------------------------------------------------ safetensors

ST_DTYPES = {
    torch.float32: 'F32', torch.float64: 'F64', torch.int64: 'I64', torch.int32: 'I32',
    torch.int16: 'I16', torch.int8: 'I8', torch.uint8: 'U8', torch.bool: 'BOOL',
}


def safetensors_bytes(tensors, metadata=None):
    """The safetensors writer's layout (huggingface/safetensors serialize):
    tensors sorted by dtype alignment (largest first) then name, packed
    without gaps; the header JSON padded with spaces to a multiple of 8."""
    order = sorted(tensors.items(), key=lambda kv: (-kv[1].element_size(), kv[0]))
    header, chunks, offset = {}, [], 0
    if metadata is not None:
        header['__metadata__'] = metadata
    for name, t in order:
        raw = t.contiguous().numpy().tobytes()
        header[name] = {'dtype': ST_DTYPES[t.dtype], 'shape': list(t.shape),
                        'data_offsets': [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    return struct.pack('<Q', len(text)) + text + b''.join(chunks)


def raw_safetensors(header_obj, data, pad=True):
    text = header_obj if isinstance(header_obj, bytes) else json.dumps(header_obj).encode()
    if pad:
        text += b' ' * (-len(text) % 8)
    return struct.pack('<Q', len(text)) + text + data


def gen_valid_safetensors():
    clean('safetensors', 'valid')
    lines = []

    def add(name, tensors, metadata=None):
        data = safetensors_bytes(tensors, metadata)
        with open(os.path.join(HERE, 'safetensors', 'valid', name), 'wb') as f:
            f.write(data)
        header_len = struct.unpack('<Q', data[:8])[0]
        header = json.loads(data[8:8 + header_len])
        names = [k for k in header if k != '__metadata__']
        lines.append('%s count %d' % (name, len(names)))
        lines.append('%s order %s' % (name, ' '.join(names)))
        for key, value in (metadata or {}).items():
            lines.append('%s meta %s %s' % (name, key, value))
        lines.append('%s no-meta not_there' % name)
        for tname in names:
            lines.append('%s tensor %s %s' % (name, tname, manifest_values(tensors[tname].numpy())))

    # A small module's state_dict, as the driver's --weights binds it.
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 2), torch.nn.BatchNorm2d(3),
                                torch.nn.Flatten(), torch.nn.Linear(3, 2))
    model.eval()
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    add('module.safetensors', state,
        {'format': 'pt', '1.training': 'false', '1.eps': '1e-05', 'note': 'made_by_gen_files.py'})

    add('dtypes.safetensors', {
        'f32': torch.tensor([[1.5, -0.0], [float('inf'), float('nan')]]),
        'f64': torch.tensor([3.141592653589793, -1e-300], dtype=torch.float64),
        'i64': torch.tensor([-(2 ** 63), 2 ** 63 - 1, 0]),
        'i32': torch.tensor([[-7], [2 ** 31 - 1]], dtype=torch.int32),
        'i16': torch.tensor([-32768, 12], dtype=torch.int16),
        'i8': torch.tensor([-128, 127], dtype=torch.int8),
        'u8': torch.tensor([0, 255, 17], dtype=torch.uint8),
        'mask': torch.tensor([[True, False, True]]),
        'scalar': torch.tensor(2.5),
        'empty': torch.zeros(0, 3),
        'long.dotted.name.0.weight': torch.arange(4, dtype=torch.float32),
    })
    add('no_metadata.safetensors', {'only': torch.tensor([1, 2, 3], dtype=torch.int32)})
    add('no_tensors.safetensors', {}, {'k': 'v'})

    # Bool bytes other than 0 and 1 (no writer makes them; a reader must not
    # pass them on as C bools): any nonzero byte is True, as numpy reads it.
    raw = raw_safetensors({'m': {'dtype': 'BOOL', 'shape': [4], 'data_offsets': [0, 4]}},
                          bytes([0, 1, 2, 255]))
    with open(os.path.join(HERE, 'safetensors', 'valid', 'bool_bytes.safetensors'), 'wb') as f:
        f.write(raw)
    assert (np.frombuffer(bytes([0, 1, 2, 255]), dtype=np.uint8).astype(bool) ==
            np.array([False, True, True, True])).all()
    lines += ['bool_bytes.safetensors count 1', 'bool_bytes.safetensors order m',
              'bool_bytes.safetensors tensor m bool [4] 0 1 1 1']

    with open(os.path.join(HERE, 'safetensors', 'valid.txt'), 'w') as f:
        f.write('# FILE count N | FILE order NAMES... | FILE meta KEY VALUE | FILE no-meta KEY\n'
                '# FILE tensor NAME DTYPE [SHAPE] VALUES...; see gen_files.py\n')
        f.write('\n'.join(lines) + '\n')


def gen_bad_safetensors():
    clean('safetensors', 'bad')
    lines = []

    def add(name, data, words):
        with open(os.path.join(HERE, 'safetensors', 'bad', name), 'wb') as f:
            f.write(data)
        lines.append(name + '\t' + words)

    f32x4 = np.arange(4, dtype=np.float32).tobytes()
    entry = lambda dt='F32', shape=(4,), off=(0, 16): {'dtype': dt, 'shape': list(shape),
                                                       'data_offsets': list(off)}
    good = raw_safetensors({'a': entry()}, f32x4)

    add('empty.safetensors', b'', 'too short for the 8-byte header length')
    add('trunc_length.safetensors', good[:5], 'too short for the 8-byte header length')
    add('trunc_header.safetensors', good[:20], 'file is truncated: the header length')
    add('header_past_end.safetensors', struct.pack('<Q', 1000) + good[8:],
        'header length is 1000 bytes')
    add('header_huge.safetensors', struct.pack('<Q', 2 ** 60) + good[8:], 'is not plausible')
    add('header_zero.safetensors', struct.pack('<Q', 0) + good[8:], 'is not plausible')
    add('npy_file.safetensors', npy_bytes(np.arange(3.0)), 'is not plausible')
    add('trunc_data.safetensors', good[:-3], 'run past the end of the data section')
    add('bad_json.safetensors', raw_safetensors(b'{"a": {"dtype": "F32",', f32x4),
        'not valid JSON')
    add('json_not_object.safetensors', raw_safetensors(b'[1, 2, 3]', b''),
        'must be a JSON object')
    add('json_trailing.safetensors', raw_safetensors(b'{} xyz', b'', pad=False),
        'unexpected bytes after the JSON header')
    add('entry_not_object.safetensors', raw_safetensors({'a': 3}, b''),
        "tensor 'a': entry must be a JSON object")
    add('missing_dtype.safetensors', raw_safetensors({'a': {'shape': [4], 'data_offsets': [0, 16]}},
                                                     f32x4),
        "tensor 'a': entry needs \"dtype\"")
    add('f16.safetensors', raw_safetensors({'half': entry('F16', (4,), (0, 8))}, f32x4[:8]),
        "tensor 'half' has dtype F16, which is not supported")
    add('bf16.safetensors', raw_safetensors({'w': entry('BF16', (2,), (0, 4))}, f32x4[:4]),
        "tensor 'w' has dtype BF16, which is not supported")
    add('unknown_dtype.safetensors', raw_safetensors({'a': entry('Q7')}, f32x4),
        "tensor 'a' has unknown dtype")
    add('shape_negative.safetensors', raw_safetensors({'a': entry(shape=(-4,))}, f32x4),
        "tensor 'a': shape must be a list of non-negative integers")
    add('shape_fraction.safetensors', raw_safetensors({'a': entry(shape=(2.5,))}, f32x4),
        "tensor 'a': shape must be a list of non-negative integers")
    add('shape_huge.safetensors', raw_safetensors({'a': entry(shape=(2 ** 40, 2 ** 40))}, f32x4),
        "tensor 'a': shape is too large")
    add('shape_17d.safetensors', raw_safetensors({'a': entry(shape=(1,) * 17, off=(0, 4))},
                                                 f32x4[:4]),
        "tensor 'a' has 17 dimensions")
    add('offsets_three.safetensors', raw_safetensors({'a': entry(off=(0, 8, 16))}, f32x4),
        "tensor 'a': data_offsets must be [begin, end]")
    add('offsets_reversed.safetensors', raw_safetensors({'a': entry(off=(16, 0))}, f32x4),
        "tensor 'a': data_offsets must be [begin, end]")
    add('offsets_past_end.safetensors', raw_safetensors({'a': entry(off=(8, 24))}, f32x4),
        "tensor 'a': data_offsets [8, 24] run past the end of the data section (16 bytes)")
    add('offsets_huge.safetensors', raw_safetensors({'a': entry(off=(2 ** 62, 2 ** 62 + 16))}, f32x4),
        "tensor 'a': data_offsets must be [begin, end]")
    add('wrong_byte_count.safetensors', raw_safetensors({'a': entry(shape=(3,))}, f32x4),
        "tensor 'a': data_offsets [0, 16] hold 16 bytes, but its shape and dtype F32 need 12")
    add('overlap.safetensors', raw_safetensors({'a': entry(shape=(3,), off=(0, 12)),
                                                'b': entry(shape=(2,), off=(8, 16))}, f32x4),
        "tensors 'a' [0, 12) and 'b' [8, 16) overlap")
    add('overlap_same.safetensors', raw_safetensors({'a': entry(), 'b': entry()}, f32x4),
        'overlap')
    add('duplicate_name.safetensors',
        raw_safetensors(b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, '
                        b'"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}', f32x4),
        "tensor 'a' appears twice")
    add('metadata_not_string.safetensors', raw_safetensors({'__metadata__': {'n': 3}}, b''),
        '"__metadata__" must map strings to strings; "n" is not a string')
    add('metadata_not_object.safetensors', raw_safetensors({'__metadata__': 'x'}, b''),
        '"__metadata__" must be a JSON object')

    with open(os.path.join(HERE, 'safetensors', 'bad.txt'), 'w') as f:
        f.write('# FILE<TAB>words the error message must contain; see gen_files.py\n')
        f.write('\n'.join(lines) + '\n')


# ------------------------------------------------------------------ npy_compare

def gen_compare():
    clean('compare')

    def save(name, arr):
        np.save(os.path.join(HERE, 'compare', name), arr)

    base = np.array([[1.0, -2.0, np.nan], [np.inf, 0.0, 1e6]], dtype=np.float32)
    save('base.npy', base)
    save('base_copy.npy', base.copy())
    close = base.copy()
    close[0, 0] += 5e-5                   # within atol 1e-5 + rtol 1e-4 * 1
    close[1, 2] += 50                     # within rtol 1e-4 * 1e6
    save('base_close.npy', close)
    far = base.copy()
    far[0, 1] = -2.01
    save('base_far.npy', far)
    neg_inf = base.copy()
    neg_inf[1, 0] = -np.inf
    save('base_neg_inf.npy', neg_inf)
    not_nan = base.copy()
    not_nan[0, 2] = 0.0
    save('base_not_nan.npy', not_nan)
    save('base_f64.npy', base.astype(np.float64))
    save('base_transposed.npy', np.ascontiguousarray(base.T))
    save('ints.npy', np.array([1, 2, 3], dtype=np.int64))
    save('ints_off_by_one.npy', np.array([1, 2, 4], dtype=np.int64))
    save('bools.npy', np.array([True, False]))
    save('bools_flipped.npy', np.array([True, True]))


if __name__ == '__main__':
    gen_valid_npy()
    gen_bad_npy()
    gen_write_npy()
    gen_valid_safetensors()
    gen_bad_safetensors()
    gen_compare()
    print('wrote tests/tensor/io test files')
