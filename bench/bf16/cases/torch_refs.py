"""PyTorch equivalents of the bf16 cases (bench/bf16/cases), for bench/suite/torch_ref.py
(run.sh --cases-dir bench/bf16/cases).  refs(torch, F) returns {case: fn(t, s)}: t maps
the launcher's buffer names to flat tensors (float64 when checking, the case's own
types, bf16, when timing), s its scalars; fn returns the out buffers."""


def refs(torch, F):
    def i(s, k):
        return int(s[k])

    def layernorm_bf16(t, s):
        rows, cols = i(s, "rows"), i(s, "cols")
        return {"y": F.layer_norm(t["x"].view(rows, cols), (cols,), t["weight"], t["bias"], 1e-5)}

    def row_sum_bf16(t, s):
        x = t["x"].view(i(s, "rows"), i(s, "cols"))
        return {"out": x.sum(1, dtype=torch.float32 if x.dtype == torch.bfloat16 else x.dtype)}

    def sum_squares_bf16(t, s):
        x = t["x"]
        x = x.float() if x.dtype == torch.bfloat16 else x
        return {"result": (x * x).sum().reshape(1)}

    def embedding_bf16(t, s):
        table = t["table"].view(i(s, "vocab"), i(s, "dim"))
        return {"out": F.embedding(t["ids"].long(), table)}

    return {
        "gelu_bf16": lambda t, s: {"out": F.gelu(t["inp"], approximate="tanh")},
        "residual_bf16": lambda t, s: {"out": t["a"] + t["b"]},
        "softmax_bf16": lambda t, s: {"probs": torch.softmax(t["logits"].view(i(s, "batch"), i(s, "classes")), 1)},
        "layernorm_bf16": layernorm_bf16,
        "row_sum_bf16": row_sum_bf16,
        "sum_squares_bf16": sum_squares_bf16,
        "transpose_bf16": lambda t, s: {"out": t["in"].view(i(s, "rows"), i(s, "cols")).t().contiguous()},
        "embedding_bf16": embedding_bf16,
    }
