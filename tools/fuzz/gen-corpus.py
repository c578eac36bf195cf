#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Write the seed corpus of the npa fuzzers: tools/fuzz/gen-corpus.py [DIR]
# (default: tools/fuzz/corpus).  The encodings are described at the top of
# fuzz_graph.c, fuzz_plan.c and fuzz_exec.c.  The files with hex names next
# to these seeds are what `fuzz-T -merge=1 corpus/T build/fuzz/work/T` kept
# of the campaigns in Documentation/hardening.rst; graph/bug-variable-granted-0
# is a fuzzer artifact kept as found.
import os
import struct
import sys

# uAPI values (include/uapi/linux/npa.h)
INPUT, OUTPUT, CONST, PERSISTENT = 1, 2, 4, 8
NONE, INT8, UINT8, INT16, INT32 = 0, 1, 2, 3, 4
CONV2D, DWCONV2D, MAXPOOL, AVGPOOL, ADD, MUL, ACT, CONCAT, RESHAPE, SPLIT, \
    UPSAMPLE, COPY, FC, REORG = range(1, 15)
NPU, DMA, CPU = 0, 1, 2
INPLACE = 1
VARIABLE, LATENCY = 1, 2
# kh, kw, sh, sw, pad_t, pad_l, groups, shift
DEFAULT_PARAMS = {CONV2D: [3, 3, 1, 1, 1, 1, 0, 6],
                  DWCONV2D: [3, 3, 1, 1, 1, 1, 0, 4],
                  MAXPOOL: [2, 2, 2, 2, 0, 0, 0, 0],
                  AVGPOOL: [2, 2, 2, 2, 0, 0, 0, 1],
                  ACT: [2, 0, 0, 0, 0, 0, 0, 0],
                  UPSAMPLE: [2, 0, 0, 0, 0, 0, 0, 0],
                  REORG: [2, 0, 0, 0, 0, 0, 0, 0]}


def align_code(a):
    return 0 if not a else a.bit_length()


class Graph:
    def __init__(self):
        self.t, self.ops, self.opd, self.scr = [], [], [], []

    def tensor(self, dims=(), dtype=INT8, flags=0, size=0, align=0):
        d = list(dims) + [0] * (4 - len(dims))
        self.t.append((flags, dtype, align_code(align), 2 if size else 0,
                       d, size))
        return len(self.t) - 1

    def act(self, c, h, w, flags=0):
        return self.tensor((1, c, h, w), INT8, flags)

    def scratch(self, size, minimum=0, align=0, flags=0):
        self.scr.append((size, minimum, align_code(align), flags))
        return len(self.scr) - 1

    def op(self, kind, ins, outs, unit=NPU, flags=0, scratch=(), params=()):
        fi = len(self.opd)
        self.opd += ins
        fo = len(self.opd)
        self.opd += outs
        fs = scratch[0] if scratch else 0
        p = list(params) + [0] * (8 - len(params))
        if not params:
            p = DEFAULT_PARAMS.get(kind, p)
        self.ops.append((kind, unit, flags, fi, len(ins), fo, len(outs), fs,
                         len(scratch), p))

    def encode(self, mode=0, lim=0, budget=8):
        b = bytes([mode, len(self.t), len(self.ops), len(self.opd),
                   len(self.scr), lim, budget, 0])
        for flags, dtype, al, m, d, size in self.t:
            b += bytes([flags, dtype, al, m] + d) + struct.pack('<H', size)
        for o in self.ops:
            b += bytes(o[:9]) + struct.pack('<8b', *o[9])
        b += bytes(self.opd)
        for size, minimum, al, flags in self.scr:
            m = 0
            if flags & VARIABLE:
                m = (minimum - 1) // (size // 254) if size >= 254 else 1
                m = min(max(m, 1), 254)
            b += struct.pack('<H', size) + bytes([m, al, flags])
        return b

    def encode_raw(self, lim=0, budget=8):
        b = bytes([1, len(self.t), len(self.ops), len(self.opd),
                   len(self.scr), lim, budget, 0])
        for flags, dtype, al, m, d, size in self.t:
            b += struct.pack('<Q4IIIII', size, *d, dtype,
                             0 if not al else 1 << (al - 1), flags, 0)
        for o in self.ops:
            b += struct.pack('<10I8i', *o[:9], 0, *o[9])
        b += struct.pack('<%dI' % len(self.opd), *self.opd)
        for size, minimum, al, flags in self.scr:
            b += struct.pack('<QQII', size, minimum if flags & VARIABLE else 0,
                             0 if not al else 1 << (al - 1), flags)
        return b


def g_conv_chain():
    g = Graph()
    x = g.act(3, 16, 16, INPUT)
    w = g.tensor((8, 3, 3, 3), INT8, CONST)
    bias = g.tensor((8,), INT32, CONST)
    y = g.act(8, 16, 16)
    g.op(CONV2D, [x, w, bias], [y], scratch=[g.scratch(432)])
    z = g.act(8, 16, 16)
    g.op(ACT, [y], [z], flags=INPLACE)
    p = g.act(8, 8, 8)
    g.op(MAXPOOL, [z], [p])
    w2 = g.tensor((8, 1, 3, 3), INT8, CONST)
    q = g.act(8, 8, 8)
    g.op(DWCONV2D, [p, w2], [q], unit=DMA,
         scratch=[g.scratch(576, 72, 0, VARIABLE)])
    o = g.act(8, 8, 8, OUTPUT)
    g.op(COPY, [q], [o], unit=CPU)
    return g


def g_one(kind, shapes_in, shape_out, unit=NPU, flags=0, consts=()):
    """input -> COPY -> a -> KIND (with const extra inputs) -> b -> COPY -> out"""
    g = Graph()
    ins = []
    for s in shapes_in:
        x = g.tensor(s, INT8, INPUT)
        a = g.tensor(s, INT8)
        g.op(COPY, [x], [a], unit=CPU)
        ins.append(a)
    for dims, dt in consts:
        ins.append(g.tensor(dims, dt, CONST))
    b = g.tensor(shape_out, INT8)
    g.op(kind, ins, [b], unit=unit, flags=flags)
    o = g.tensor(shape_out, INT8, OUTPUT)
    g.op(COPY, [b], [o], unit=DMA)
    return g


def g_each_kind():
    A = (1, 4, 8, 8)
    yield 'conv2d', g_one(CONV2D, [A], (1, 8, 8, 8),
                          consts=[((8, 4, 3, 3), INT8), ((8,), INT32)])
    yield 'dwconv2d', g_one(DWCONV2D, [A], A, consts=[((4, 1, 3, 3), INT8)])
    yield 'maxpool', g_one(MAXPOOL, [A], (1, 4, 4, 4))
    yield 'avgpool', g_one(AVGPOOL, [A], (1, 4, 4, 4), unit=CPU)
    yield 'add', g_one(ADD, [A, A], A, flags=INPLACE)
    yield 'mul', g_one(MUL, [A, A], A, unit=DMA)
    yield 'activation', g_one(ACT, [A], A, flags=INPLACE)
    yield 'concat', g_one(CONCAT, [A, A, (1, 2, 8, 8)], (1, 10, 8, 8))
    yield 'reshape', g_one(RESHAPE, [A], (1, 4, 64))
    yield 'upsample', g_one(UPSAMPLE, [A], (1, 4, 16, 16))
    yield 'copy', g_one(COPY, [A], A, unit=CPU)
    yield 'fc', g_one(FC, [(1, 64)], (1, 10),
                      consts=[((10, 64), INT8), ((10,), INT32)])
    yield 'reorg', g_one(REORG, [A], (1, 16, 4, 4))
    g = Graph()
    x = g.act(4, 8, 8, INPUT)
    a = g.act(4, 8, 8)
    g.op(COPY, [x], [a])
    s0, s1 = g.act(1, 8, 8), g.act(3, 8, 8)
    g.op(SPLIT, [a], [s0, s1])
    o0, o1 = g.act(1, 8, 8, OUTPUT), g.act(3, 8, 8, OUTPUT)
    g.op(ACT, [s0], [o0])
    g.op(ACT, [s1], [o1], unit=CPU)
    yield 'split', g


def g_residual():
    """YOLO-like: conv, split route, concat route, shortcut add."""
    g = Graph()
    x = g.act(8, 8, 8, INPUT)
    c1 = g.act(8, 8, 8)
    g.op(CONV2D, [x, g.tensor((8, 8, 1, 1), INT8, CONST)], [c1],
         params=[1, 1, 1, 1, 0, 0, 0, 5])
    h0, h1 = g.act(4, 8, 8), g.act(4, 8, 8)
    g.op(SPLIT, [c1], [h0, h1])
    c2 = g.act(4, 8, 8)
    g.op(CONV2D, [h1, g.tensor((4, 4, 3, 3), INT8, CONST)], [c2],
         scratch=[g.scratch(288, 36, 64, VARIABLE | LATENCY)])
    c3 = g.act(4, 8, 8)
    g.op(ACT, [c2], [c3], flags=INPLACE)
    cat = g.act(12, 8, 8)
    g.op(CONCAT, [h0, c3, h1], [cat])
    c4 = g.act(8, 8, 8)
    g.op(CONV2D, [cat, g.tensor((8, 12, 1, 1), INT8, CONST)], [c4],
         params=[1, 1, 1, 1, 0, 0, 0, 5])
    s = g.act(8, 8, 8)
    g.op(ADD, [c4, c1], [s], flags=INPLACE)
    r = g.tensor((1, 64, 8))
    g.op(RESHAPE, [s], [r])
    st = g.tensor((1, 64, 8), INT8, PERSISTENT)
    o = g.tensor((1, 64, 8), INT8, OUTPUT)
    g.op(ADD, [r, st], [o], unit=CPU)
    return g


def g_scratch(fast=False):
    g = Graph()
    x = g.act(4, 16, 16, INPUT)
    prev = x
    kinds = [(0, 0), (VARIABLE, 100), (LATENCY, 0), (VARIABLE | LATENCY, 50)]
    for i, (fl, mn) in enumerate(kinds):
        y = g.act(4, 16, 16)
        s0 = g.scratch(300 + 100 * i, mn, 16 << i, fl)
        g.scratch(64, 0, 0, LATENCY if i & 1 else 0)
        g.op(ACT, [prev], [y], unit=i % 3, scratch=[s0, s0 + 1])
        prev = y
    o = g.act(4, 16, 16, OUTPUT)
    g.op(COPY, [prev], [o])
    return g


def g_wide():
    """Many live tensors at once: the planner has something to do."""
    g = Graph()
    outs = [g.tensor((1, 4 + i, 8, 8 - (i % 4))) for i in range(10)]
    for i, y in enumerate(outs):
        src = g.tensor(g.t[y][4][:4], INT8, INPUT)
        g.op(COPY, [src], [y], unit=i % 3)
    for i, y in enumerate(outs):
        o = g.tensor(g.t[y][4][:4], INT8, OUTPUT)
        g.op(ACT, [y], [o], unit=(i + 1) % 3)
    return g


def graph_corpus(d):
    files = {'conv-chain': g_conv_chain().encode(),
             'conv-chain-twice': g_conv_chain().encode(mode=2),
             'conv-chain-raw': g_conv_chain().encode_raw(),
             'residual': g_residual().encode(),
             'residual-default-budget': g_residual().encode(budget=255),
             'residual-raw': g_residual().encode_raw(),
             'scratch-kinds': g_scratch().encode(),
             'scratch-fast-1k': g_scratch().encode(lim=2),
             'wide': g_wide().encode(budget=40)}
    for name, g in g_each_kind():
        files['op-' + name] = g.encode()
    # Edge cases.
    files['over-limits'] = g_residual().encode(lim=1)
    files['empty'] = bytes(8)
    g = Graph()
    a, b = g.act(1, 4, 4), g.act(1, 4, 4)
    g.op(ACT, [b], [a])
    g.op(ACT, [a], [b])
    files['cycle'] = g.encode()
    g = Graph()
    x = g.tensor((), NONE, INPUT, size=0xc000 | (40 << 8) | 128)
    y = g.tensor((), NONE, size=0xc000 | (40 << 8) | 128)
    g.op(COPY, [x], [y])
    o = g.tensor((), NONE, OUTPUT, size=0xc000 | (40 << 8) | 128)
    g.op(COPY, [y], [o])
    files['size-1tib'] = g.encode()
    g = Graph()
    x = g.tensor((255, 255, 255, 255), INT32, INPUT)
    y = g.tensor((1, 4), INT8)
    g.op(COPY, [x], [y])
    files['dims-overflow'] = g.encode()
    # Regressions: bugs the fuzzer found (see Documentation/hardening.rst).
    g = Graph()
    x = g.act(1, 4, 4, INPUT)
    y = g.act(1, 4, 4, OUTPUT)
    g.op(ACT, [x], [y], scratch=[g.scratch(64)])
    g.scratch(64)
    files['bug-unowned-scratch'] = g.encode()
    g = Graph()
    p = g.act(1, 4, 4, PERSISTENT)
    g.opd = [p]
    g.ops = [(ACT, NPU, INPLACE, 0, 1, 0, 1, 0, 0, [1] + [0] * 7)]
    files['bug-self-operand'] = g.encode()
    write(d, files)


def plan_corpus(d):
    def bufs(lst, budget=16, mode=0):
        b = bytes([len(lst), budget, mode, 0])
        for size, al, lo, ln, fl in lst:
            b += struct.pack('<H', size) + bytes([al, lo, ln, fl])
        return b
    chain = [(100 + 37 * i, i % 8, i, 2, 0) for i in range(24)]
    tight = [(64, 7, 0, 4, 0), (64, 7, 0, 2, 0), (64, 7, 2, 2, 0),
             (128, 7, 1, 2, 0), (32, 6, 3, 1, 0), (96, 6, 0, 1, 0)]
    many = [((i * 7919) % 4000 + 1, (i * 3) % 10, (i * 13) % 50,
             1 + (i * 5) % 17, 0) for i in range(80)]
    huge = [(0xc000 | (62 << 8) | 128, 1, 0, 2, 0),
            (0xc000 | (62 << 8) | 128, 1, 1, 2, 0)]
    overflow = huge + [(0xc000 | (63 << 8) | 128, 1, 0, 1, 0)]
    files = {'chain': bufs(chain), 'tight': bufs(tight, 255),
             'many': bufs(many, 60), 'many-greedy': bufs(many, 60, 1),
             'huge': bufs(huge), 'overflow': bufs(overflow),
             'bad-lifetime': bufs([(10, 0, 5, 0, 0)]),
             'bad-align': bufs([(10, 255, 0, 1, 0)]),
             'bad-flags': bufs([(10, 0, 0, 1, 0x81)]),
             'zero-sizes': bufs([(0, 3, 0, 4, 0), (0, 0, 1, 1, 0), (5, 0, 0, 1, 0)]),
             'long-lifetime': bufs([(10, 0, 0, 1, 0x40), (20, 0, 3, 1, 0x41)])}
    write(d, files)


def exec_corpus(d):
    def op(kind, params, ins, outs, flags=0, scr=0, data=b''):
        b = bytes([kind, flags, len(ins) - 1, len(outs) - 1])
        b += struct.pack('<8b', *(list(params) + [0] * (8 - len(params))))
        b += struct.pack('<H', scr)
        for dtype, dims in ins + outs:
            b += bytes([dtype] + list(dims) + [0] * (4 - len(dims)) + [0])
        return b + (data or bytes(range(256)) * 2)
    A = (INT8, (1, 2, 4, 4))
    files = {
        'conv3x3': op(CONV2D, [3, 3, 1, 1, 1, 1, 0, 4],
                      [A, (INT8, (3, 2, 3, 3)), (INT32, (3,))],
                      [(INT8, (1, 3, 4, 4))], scr=18 * 4),
        'conv-groups': op(CONV2D, [3, 3, 2, 2, 1, 1, 2, 2],
                          [(INT8, (1, 4, 5, 5)), (INT8, (4, 2, 3, 3))],
                          [(INT8, (1, 4, 3, 3))], scr=18),
        'conv1x1': op(CONV2D, [1, 1, 1, 1, 0, 0, 0, 1],
                      [A, (INT8, (2, 2, 1, 1))], [A]),
        'dwconv': op(DWCONV2D, [3, 3, 1, 1, 1, 1, 0, 3],
                     [A, (INT8, (2, 1, 3, 3)), (INT32, (2,))], [A], scr=9),
        'maxpool-odd': op(MAXPOOL, [2, 2, 1, 1, 0, 0], [A], [(INT8, (1, 2, 4, 4))]),
        'avgpool': op(AVGPOOL, [2, 2, 2, 2, 0, 0, 0, 1], [A], [(INT8, (1, 2, 2, 2))]),
        'add-inplace': op(ADD, [0] * 7 + [1], [A, A], [A], flags=3),
        'add-shortcut': op(ADD, [], [A, (INT8, (1, 2, 8, 8))], [A]),
        'mul-sample': op(MUL, [0] * 7 + [2], [A, (INT8, (1, 2, 2, 2))], [A]),
        'act-leaky-inplace': op(ACT, [2], [A], [A], flags=3),
        'act-logistic': op(ACT, [3], [A], [A]),
        'concat-shared': op(CONCAT, [], [A, A, (INT8, (1, 1, 4, 4))],
                            [(INT8, (1, 5, 4, 4))], flags=2),
        'split-shared': op(SPLIT, [], [A], [(INT8, (1, 1, 4, 4))] * 2, flags=2),
        'reshape-shared': op(RESHAPE, [], [A], [(INT8, (1, 4, 8))], flags=2),
        'copy': op(COPY, [], [A], [(UINT8, (4, 8))]),
        'upsample': op(UPSAMPLE, [2], [A], [(INT8, (1, 2, 8, 8))]),
        'reorg': op(REORG, [2], [A], [(INT8, (1, 8, 2, 2))]),
        'fc': op(FC, [0] * 7 + [5], [(INT8, (1, 8)), (INT8, (3, 8)), (INT32, (3,))],
                 [(INT8, (1, 3))]),
    }
    write(d, files)


def write(d, files):
    os.makedirs(d, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'corpus')
    graph_corpus(os.path.join(top, 'graph'))
    plan_corpus(os.path.join(top, 'plan'))
    exec_corpus(os.path.join(top, 'exec'))


if __name__ == '__main__':
    main()
