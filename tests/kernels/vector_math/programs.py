"""Programs of tests/kernels/check_vector_math.sh: fused math after a
select with a constant arm, and a control without one. Exported with
    /usr/bin/python3 frontend/export.py tests/kernels/vector_math/programs.py:NAME \
        --inputs "x=torch.rand(2, 64) * 3" -o tests/kernels/vector_math/NAME \
        --source-root tests/kernels/vector_math
"""
import torch


def clamp_log10(x):
    # amplitude_to_DB's first line: a select with a constant arm before the math
    return 10.0 * torch.log10(torch.clamp(x, min=1e-10))


def relu_exp(x):
    return torch.exp(torch.relu(x) * 0.5)


def control_exp(x):
    return torch.exp(x * 0.5)



def clamp_log10_max(x, floor):
    # amplitude_to_DB with top_db: the log, then a NaN-propagating maximum
    # (its template branched on ISNAN with ||, which GCC threaded through
    # the clamp's constant arm)
    x_db = 10.0 * torch.log10(torch.clamp(x, min=1e-10))
    return torch.max(x_db, floor)
