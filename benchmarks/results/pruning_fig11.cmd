`python benchmarks/prune_quality.py --track fig11 --no-progress`: 3 s on cpu (cpu, 2 CPU cores), torch 2.13.0+cpu, 2026-11-29
