"""numba's pipeline with one pass more, for the kit's serial kernels.

numba's ``inline="always"`` leaves an assignment per argument of each inlined call;
for an array, or a tuple of arrays such as the numbering's tables, each assignment is
an atomic reference count taken and dropped, in the innermost loops. numba's parallel
passes propagate those copies away, at a cost in compile time that grows with the
loop's body (most of a kit game's compile time when the kernels' bodies sat in their
parallel loops). :class:`CopyPropagatingCompiler` runs the same propagation once over
a serial function: the kit's parallel kernels call such a function per task.
"""

from __future__ import annotations

from numba.core import ir_utils
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.typed_passes import InlineOverloads


@register_pass(mutates_CFG=True, analysis_only=False)
class PropagateCopies(FunctionPass):
    """Copy propagation, dead code removal and the merging of blocks (numba's own
    ``ir_utils.simplify``, as its parallel passes run it)."""

    _name = "retro_kit_propagate_copies"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        ir_utils.simplify(state.func_ir, state.typemap, state.calltypes, state.metadata)
        return True


class CopyPropagatingCompiler(CompilerBase):
    """numba's nopython pipeline, with :class:`PropagateCopies` after the typed inlining."""

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.add_pass_after(PropagateCopies, InlineOverloads)
        pm.finalize()
        return [pm]
