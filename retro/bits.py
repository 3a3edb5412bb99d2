"""Bit tricks shared by the jitted kernels (all on non-negative int64 bitboards)."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


def symmetry_byte_tables(symmetry: np.ndarray) -> np.ndarray:
    """``tables[g, chunk, byte]``: the image under symmetry ``g`` (``symmetry[g, p]`` is
    where point p goes) of the points of one byte of a bitboard, so that a bitboard's
    image is an OR of one lookup per byte."""
    count, points = symmetry.shape
    chunks = -(-points // 8)
    tables = np.zeros((count, chunks, 256), dtype=np.int64)
    for g in range(count):
        for chunk in range(chunks):
            for byte in range(256):
                image = 0
                for j in range(8):
                    p = 8 * chunk + j
                    if (byte >> j) & 1 and p < points:
                        image |= 1 << int(symmetry[g, p])
                tables[g, chunk, byte] = image
    return tables


@njit(cache=True)
def popcount(x):
    """Number of set bits; LLVM turns this SWAR pattern into one ``popcnt``."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True)
def lowest_bit_index(x):
    """Index of the lowest set bit of ``x`` (``x`` must be non-zero)."""
    return popcount((x & -x) - 1)


@njit(cache=True, inline="always")
def triple_rank(bb):
    """Colex rank of a 3-square bitboard among all 3-square sets."""
    a = lowest_bit_index(bb)
    bb &= bb - 1
    b = lowest_bit_index(bb)
    bb &= bb - 1
    c = lowest_bit_index(bb)
    return a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the processor for the cache line of ``array[index]`` (a 1-d array) without
    waiting for it: loads that would miss one after another overlap when their
    addresses are known early (LLVM's ``llvm.prefetch``: a read, kept in all levels)."""
    if not (isinstance(array, types.Array) and array.ndim == 1 and isinstance(index, types.Integer)):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        data = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, data, [args[1]],
                                           wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0")
        builder.call(function, [builder.bitcast(pointer, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


def _host_has(feature: str) -> bool:
    """Whether the processor numba compiles for has an instruction set extension."""
    try:
        from llvmlite import binding

        return f"+{feature}" in binding.get_host_cpu_features().flatten().split(",")
    except Exception:  # noqa: BLE001 - no way to ask: the portable code
        return False


HAS_BMI2 = _host_has("bmi2")  # numba keys its cache by the processor's features: kernels stay per machine


def _bmi2(name: str):
    @intrinsic
    def instruction(typingctx, a, b):
        if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
            return None
        sig = types.int64(types.int64, types.int64)

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]),
                                                      f"llvm.x86.bmi.{name}.64")
            x = context.cast(builder, args[0], signature.args[0], types.int64)
            y = context.cast(builder, args[1], signature.args[1], types.int64)
            return builder.call(function, [x, y])

        return sig, codegen

    return instruction


_pdep_instruction = _bmi2("pdep")
_pext_instruction = _bmi2("pext")


@njit(cache=True, inline="always")
def _deposit_loop(bits, space):
    out = np.int64(0)
    while space and bits:  # bits past the cells of space are ignored (as pdep does)
        low = space & -space
        if bits & 1:
            out |= low
        bits >>= 1
        space ^= low
    return out


@njit(cache=True, inline="always")
def _extract_loop(x, space):
    out = np.int64(0)
    at = 0
    while space:
        low = space & -space
        if x & low:
            out |= np.int64(1) << at
        at += 1
        space ^= low
    return out


if HAS_BMI2:
    @njit(cache=True, inline="always")
    def deposit(bits, space):
        """The cells of ``space`` whose order among them is a bit of ``bits`` (pdep)."""
        return _pdep_instruction(bits, space)

    @njit(cache=True, inline="always")
    def extract(x, space):
        """The bits of ``x`` on the cells of ``space``, packed in their order (pext)."""
        return _pext_instruction(x, space)
else:
    deposit = _deposit_loop
    extract = _extract_loop
