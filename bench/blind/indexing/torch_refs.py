"""PyTorch equivalents of the indexing batch (bench/blind/indexing), for
bench/suite/torch_ref.py (run.sh --cases-dir bench/blind/indexing).  refs(torch, F)
returns {case: fn(t, s)}: t maps the launcher's buffer names to flat tensors (float64
when checking, float32 when timing), s its scalars; fn returns the out buffers.
Written from the operations as the case files' comments state them."""


def refs(torch, F):
    def i(s, k):
        return int(s[k])

    def stencil5_xy(t, s):
        u = t["u"].view(i(s, "ny"), i(s, "nx"))
        c0, c1 = float(s["c0"]), float(s["c1"])
        v = u.clone()
        v[1:-1, 1:-1] = c0 * u[1:-1, 1:-1] + c1 * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1])
        return {"v": v}

    def stencil9_flat(t, s):
        H, W = i(s, "H"), i(s, "W")
        x, w = t["in"].view(H, W), t["w"]
        out = torch.zeros_like(x)
        acc = torch.zeros_like(x[1:-1, 1:-1])
        for a in range(3):
            for b in range(3):
                acc = acc + w[a * 3 + b] * x[a:H - 2 + a, b:W - 2 + b]
        out[1:-1, 1:-1] = acc
        return {"out": out}

    def stencil7_3d(t, s):
        u = t["in"].view(i(s, "nz"), i(s, "ny"), i(s, "nx"))
        c = u[1:-1, 1:-1, 1:-1]
        lap = (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1] +
               u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] - 6.0 * c)
        out = u.clone()
        out[1:-1, 1:-1, 1:-1] = c + float(s["alpha"]) * lap
        return {"out": out}

    def stencil5_gridstride(t, s):
        x = t["src"].view(i(s, "rows"), i(s, "cols"))
        up = torch.cat([x[:1], x[:-1]], 0)
        dn = torch.cat([x[1:], x[-1:]], 0)
        lf = torch.cat([x[:, :1], x[:, :-1]], 1)
        rt = torch.cat([x[:, 1:], x[:, -1:]], 1)
        return {"dst": float(s["w_center"]) * x + float(s["w_side"]) * (up + dn + lf + rt)}

    def chain_rmsnorm_residual(t, s):
        hid = i(s, "hidden")
        h = t["x"] + t["res"]
        h2 = h.view(-1, hid)
        y = h2 * torch.rsqrt(h2.pow(2).mean(1, keepdim=True) + float(s["eps"])) * t["weight"]
        return {"h": h, "y": y}

    def chain_standardize4(t, s):
        x = t["x"].view(i(s, "rows"), i(s, "cols"))
        xc = x - x.mean(1, keepdim=True)
        return {"y": xc / torch.sqrt(xc.pow(2).mean(1, keepdim=True) + float(s["eps"]))}

    def batchnorm_relu_nchw(t, s):
        N, C, HW = i(s, "N"), i(s, "C"), i(s, "HW")
        x = t["x"].view(N, C, HW)
        col = lambda k: t[k].view(1, C, 1)
        y = (x - col("mean")) / torch.sqrt(col("var") + float(s["eps"])) * col("gamma") + col("beta")
        return {"y": torch.relu(y)}

    return {
        "stencil5_xy": stencil5_xy,
        "stencil9_flat": stencil9_flat,
        "stencil7_3d": stencil7_3d,
        "stencil5_gridstride": stencil5_gridstride,
        "transpose_xy": lambda t, s: {"odata": t["idata"].view(i(s, "height"), i(s, "width")).t().contiguous()},
        "transpose_tiled": lambda t, s: {"out": t["in"].view(i(s, "rows"), i(s, "cols")).t().contiguous()},
        "transpose_gridstride": lambda t, s: {"out": t["in"].view(i(s, "rows"), i(s, "cols")).t().contiguous()},
        "permute_heads_z": lambda t, s: {"out": t["in"].view(i(s, "B"), i(s, "T"), i(s, "NH"), i(s, "HS"))
                                         .permute(0, 2, 1, 3).contiguous()},
        "chain_scale_mask_softmax": lambda t, s: {"probs": torch.softmax(
            t["x"].view(i(s, "BH"), i(s, "T"), i(s, "T")) * float(s["scale"]) + t["mask"].view(i(s, "T"), i(s, "T")),
            -1)},
        "chain_rmsnorm_residual": chain_rmsnorm_residual,
        "chain_bias_gelu_scale": lambda t, s: {"y": F.gelu(t["x"].view(i(s, "rows"), i(s, "cols")) + t["bias"]) *
                                               float(s["keep_scale"])},
        "chain_map_rowsum": lambda t, s: {"dist": (t["a"] - t["b"]).pow(2).view(i(s, "rows"), i(s, "cols"))
                                          .sum(1).sqrt()},
        "chain_standardize4": chain_standardize4,
        "map2d_pitched": lambda t, s: {"out": float(s["alpha"]) * t["A"].view(i(s, "rows"), i(s, "lda"))[:, :i(s, "cols")] +
                                       t["r"].view(-1, 1) * t["c"].view(1, -1)},
        "scale_add_planes_3d": lambda t, s: {"out": t["in"].view(i(s, "D"), i(s, "H"), i(s, "W")) *
                                             t["scale"].view(-1, 1, 1) + t["plane"].view(1, i(s, "H"), i(s, "W"))},
        "batchnorm_relu_nchw": batchnorm_relu_nchw,
    }
