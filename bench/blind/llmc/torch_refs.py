"""PyTorch equivalents of the llmc batch (bench/blind/llmc), for bench/suite/torch_ref.py
(run.sh --cases-dir bench/blind/llmc).  refs(torch, F) returns {case: fn(t, s)}: t maps
the launcher's buffer names to flat tensors (float64 when checking, the case's own
types when timing), s its scalars; fn returns the out and inout buffers.  Written
from the operations' definitions, as the case files' comments state them."""
import math


def refs(torch, F):
    def i(s, k):
        return int(s[k])

    def encoder_forward(t, s):
        B, T, C, V = i(s, "B"), i(s, "T"), i(s, "C"), i(s, "V")
        out = F.embedding(t["inp"].long(), t["wte"].view(V, C)).view(B, T, C) + t["wpe"].view(T, C)
        return {"out": out}

    def encoder_backward(t, s):
        B, T, C, V = i(s, "B"), i(s, "T"), i(s, "C"), i(s, "V")
        dout = t["dout"].view(B * T, C)
        dwte = t["dwte"].view(V, C).index_add(0, t["inp"].long(), dout)
        dwpe = t["dwpe"].view(T, C) + t["dout"].view(B, T, C).sum(0)
        return {"dwte": dwte, "dwpe": dwpe}

    def layernorm_forward(t, s):
        N, C = i(s, "B") * i(s, "T"), i(s, "C")
        x = t["inp"].view(N, C)
        m = x.mean(1, keepdim=True)
        v = ((x - m) ** 2).mean(1, keepdim=True)
        r = 1.0 / torch.sqrt(v + 1e-5)
        return {"out": (x - m) * r * t["weight"] + t["bias"], "mean": m, "rstd": r}

    def layernorm_backward(t, s):
        N, C = i(s, "B") * i(s, "T"), i(s, "C")
        dout, x = t["dout"].view(N, C), t["inp"].view(N, C)
        rstd = t["rstd"].view(N, 1)
        norm = (x - t["mean"].view(N, 1)) * rstd
        dnorm = t["weight"] * dout
        dx = (dnorm - dnorm.mean(1, keepdim=True) - norm * (dnorm * norm).mean(1, keepdim=True)) * rstd
        return {"dinp": t["dinp"].view(N, C) + dx, "dweight": t["dweight"] + (norm * dout).sum(0),
                "dbias": t["dbias"] + dout.sum(0)}

    def matmul_forward(t, s):
        BT, C, OC = i(s, "B") * i(s, "T"), i(s, "C"), i(s, "OC")
        return {"out": F.linear(t["inp"].view(BT, C), t["weight"].view(OC, C), t["bias"])}

    def gelu_backward(t, s):
        x = t["inp"]
        k = math.sqrt(2.0 / math.pi)
        u = k * (x + 0.044715 * x ** 3)
        th = torch.tanh(u)
        grad = 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * k * (1.0 + 3.0 * 0.044715 * x * x)
        return {"dinp": grad * t["dout"]}

    def attention_softmax(t, s):
        B, NH, T, HS = i(s, "B"), i(s, "NH"), i(s, "T"), i(s, "HS")
        x = t["preatt"].view(B * NH, T, T) * (1.0 / math.sqrt(HS))
        mask = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        return {"att": torch.softmax(x.masked_fill(mask, float("-inf")), -1)}

    def crossentropy_forward(t, s):
        N, V, Vp = i(s, "B") * i(s, "T"), i(s, "V"), i(s, "Vp")
        logits = t["logits"].view(N, Vp)[:, :V]
        return {"losses": F.cross_entropy(logits, t["targets"].long(), reduction="none")}

    def crossentropy_softmax_backward(t, s):
        N, V, Vp = i(s, "B") * i(s, "T"), i(s, "V"), i(s, "Vp")
        probs = t["probs"].view(N, Vp)[:, :V]
        onehot = F.one_hot(t["targets"].long(), V).to(probs.dtype)
        d = t["dlogits"].view(N, Vp).clone()
        d[:, :V] += (probs - onehot) * t["dlosses"].view(N, 1)
        return {"dlogits": d}

    def adamw(t, s):
        lr, b1, b2 = float(s["learning_rate"]), float(s["beta1"]), float(s["beta2"])
        c1, c2 = float(s["beta1_correction"]), float(s["beta2_correction"])
        eps, wd = float(s["eps"]), float(s["weight_decay"])
        g, p = t["grads_memory"], t["params_memory"]
        m = b1 * t["m_memory"] + (1.0 - b1) * g
        v = b2 * t["v_memory"] + (1.0 - b2) * g * g
        p = p - lr * ((m / c1) / (torch.sqrt(v / c2) + eps) + wd * p)
        return {"params_memory": p, "m_memory": m, "v_memory": v}

    def fused_classifier(t, s):
        B, T, V, P = i(s, "B"), i(s, "T"), i(s, "V"), i(s, "P")
        N = B * T
        x = t["logits"].view(N, P)
        tg = t["targets"].long()
        logits = x[:, :V]
        losses = F.cross_entropy(logits.float() if logits.dtype == torch.bfloat16 else logits, tg,
                                 reduction="none")
        probs = torch.softmax(logits.float() if logits.dtype == torch.bfloat16 else logits, 1)
        grad = (probs - F.one_hot(tg, V).to(probs.dtype)) * (1.0 / N)
        d = x.clone()
        d[:, :V] = grad.to(x.dtype)
        return {"logits": d, "losses": losses}

    def softmax_vocab(t, s):
        return {"out": torch.softmax(t["inp"].view(i(s, "N"), i(s, "C")), 1)}

    def bias_backward(t, s):
        BT, OC = i(s, "B") * i(s, "T"), i(s, "OC")
        return {"dbias": t["dbias"] + t["dout"].view(BT, OC).to(t["dbias"].dtype).sum(0)}

    return {
        "encoder_forward": encoder_forward,
        "encoder_backward": encoder_backward,
        "layernorm_forward": layernorm_forward,
        "layernorm_backward": layernorm_backward,
        "matmul_forward": matmul_forward,
        "gelu_forward": lambda t, s: {"out": F.gelu(t["inp"], approximate="tanh")},
        "gelu_backward": gelu_backward,
        "residual_forward": lambda t, s: {"out": t["inp1"] + t["inp2"]},
        "attention_softmax": attention_softmax,
        "crossentropy_forward": crossentropy_forward,
        "crossentropy_softmax_backward": crossentropy_softmax_backward,
        "adamw": adamw,
        "fused_classifier": fused_classifier,
        "softmax_vocab": softmax_vocab,
        "global_norm": lambda t, s: {"out": (t["values"] * t["values"]).sum().reshape(1)},
        "bias_backward": bias_backward,
    }
