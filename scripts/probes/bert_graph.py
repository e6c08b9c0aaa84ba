"""Why BERT-large's forward replays ~4x slower as a CUDA graph than eager in `vnmsparse bench e2e`
(dense included): the top kernels of one eager call and of one replay (torch.profiler)."""
import torch
import transformers
from torch.profiler import ProfilerActivity, profile

from vnmsparse import bench_e2e as E

print("transformers", transformers.__version__)
model = E.build_bert(False).to("cuda", torch.bfloat16).eval()
print("attn", getattr(model.config, "_attn_implementation", None))
ids = torch.randint(0, 30522, (32, 512), device="cuda")


@torch.no_grad()
def call():
    return model(input_ids=ids).last_hidden_state


for _ in range(2):
    call()
torch.cuda.synchronize()
g = torch.cuda.CUDAGraph()
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    call()
torch.cuda.current_stream().wait_stream(side)
with torch.cuda.graph(g):
    call()
g.replay()
torch.cuda.synchronize()
for name, fn in (("eager", call), ("graph", g.replay)):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    print(f"== {name}")
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=8, max_name_column_width=90))
