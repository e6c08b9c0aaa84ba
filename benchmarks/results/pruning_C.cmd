`python benchmarks/prune_quality.py --track C --no-progress`: 2014 s on cpu (cpu, 2 CPU cores), torch 2.13.0+cpu, 2026-11-29
`python benchmarks/prune_quality.py --track C --no-smollm --patterns 256:2:8 256:2:16 --no-progress`: 291 s on cpu (cpu, 2 CPU cores), torch 2.14.1+cu130, 2026-12-06
