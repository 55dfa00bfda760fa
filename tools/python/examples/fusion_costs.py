"""Prints each fusion's estimated cost: name, time_us, bytes_read, flops.

  PYTHONPATH=build/python python3 tools/python/examples/fusion_costs.py \
      tests/analysis/hlo_corpus/gpu_after_opt_mlp.hlo [DEVICE]
"""
import sys

import ixa

module = ixa.HloModule.from_file(sys.argv[1])
device = sys.argv[2] if len(sys.argv) > 2 else "h100"
for name in module.fusions():
    cost = module.fusion_cost(fusion=name, device=device)
    print(f"{name:<16} {cost['time_us']:10.3f} {cost['bytes_read']:12d} "
          f"{cost['flops']:12d}")
