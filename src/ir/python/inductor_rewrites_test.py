# Tests of inductor_rewrites.py on real torch and Inductor (cpu): the rewrites that fire while a
# program compiles are named as the catalogue names them, observing changes no result, and a program
# no rewrite matches records none. Inductor's caches are off: a hit would run no pass.
import unittest

import torch
import torch._dynamo
import torch._inductor.config

from embedded_text import run

NS = run("inductor_rewrites.py")
NS["install_rewrite_observer"]()


def compiled(fn, *args):
    """fn's compiled result and the rewrites that fired while it compiled."""
    torch._dynamo.reset()
    NS["take_rewrites"]()
    with torch._inductor.config.patch(force_disable_caches=True):
        out = torch.compile(fn, backend="inductor", fullgraph=True)(*args)
    return out, NS["take_rewrites"]()


_CATALOGUE = []


def catalogue():
    """The catalogue's rows by name, listed once for the tests that read it (it compiles twice)."""
    if not _CATALOGUE:
        _CATALOGUE.append({r["name"]: r for r in NS["rewrite_catalogue"]()})
    return _CATALOGUE[0]


def attention(q, k, v):
    return (q @ k.transpose(-2, -1) / 4.0).softmax(-1) @ v


class ObserverTest(unittest.TestCase):
    def test_hand_written_attention_is_fused_and_named_and_its_result_unchanged(self):
        q, k, v = (torch.randn(2, 4, 8, 16) for _ in range(3))
        out, fired = compiled(attention, q, k, v)
        self.assertIn("_sfdp_pattern_1_inference", fired)
        torch.testing.assert_close(out, attention(q, k, v))

    def test_a_product_no_rewrite_matches_records_none(self):
        a, b = torch.randn(8, 8), torch.randn(8, 8)
        out, fired = compiled(lambda x, y: x @ y, a, b)
        self.assertEqual(fired, [])
        torch.testing.assert_close(out, a @ b)

    def test_a_small_product_decomposed_into_pointwise_ops_is_a_rewrite(self):
        a, b = torch.randn(4, 1), torch.randn(1, 4)
        out, fired = compiled(torch.mm, a, b)
        self.assertEqual(fired, ["decompose.mm"])
        torch.testing.assert_close(out, a @ b)

    def test_names_are_plain_words(self):
        clean = NS["_mmdiff_rewrite_clean"]
        self.assertEqual(clean("torch._inductor.fx_passes.post_grad.addmm"), "post_grad.addmm")
        self.assertEqual(clean("m.f.<locals>.g h"), "m.f.locals.g_h")
        self.assertEqual(len(clean("x" * 500)), 200)


class CatalogueTest(unittest.TestCase):
    def test_the_catalogue_holds_the_family_and_names_rewrites_as_they_fire(self):
        rows = catalogue()
        for name in ("_sfdp_pattern_1_inference", "post_grad.addmm", "decompose.mm",
                     "joint_graph.pointless_convert"):
            self.assertTrue(rows[name]["family"], name)
        self.assertFalse(rows["replace_random.replace_random"]["family"])
        self.assertEqual(rows["post_grad.unfuse_bias_add_to_pointwise"]["note"], "GPU only")
        self.assertIn("bmm", rows["_sfdp_pattern_1_inference"]["ops"])

    def test_a_pattern_of_quantized_ops_is_out_of_reach_and_says_which(self):
        import torch.ao.quantization.fx._decomposed  # noqa: F401 (registers quantized_decomposed)
        from torch._inductor.pattern_matcher import Arg, CallFunction
        aten, q = torch.ops.aten, torch.ops.quantized_decomposed
        dequantized = CallFunction(q.dequantize_per_tensor.default, Arg(), Arg(), Arg(), Arg(),
                                   Arg(), Arg())
        ops = NS["_mmdiff_rewrite_targets"](CallFunction(aten.mm.default, Arg(), dequantized))
        self.assertEqual(ops, {"mm", "quantized_decomposed.dequantize_per_tensor"})
        note = NS["_mmdiff_rewrite_quantized_note"]
        self.assertIn("quantized_decomposed.dequantize_per_tensor", note(ops))
        self.assertIn("_int_mm", note({"_int_mm", "mul"}))
        self.assertEqual(note(NS["_mmdiff_rewrite_targets"](
            CallFunction(aten.addmm.default, Arg(), Arg(), Arg()))), "")

    def test_every_name_a_note_gives_is_a_rewrite_of_this_torch(self):
        from torch._inductor.fx_passes import fuse_attention
        rows = set(catalogue())
        # Or one that fuse_attention makes and drops as a duplicate of another (2.15 drops 2.11's
        # _sfdp_pattern_11_half_inference).
        made = {name for name, _ in fuse_attention._get_sfdp_patterns(torch.device("cpu"))}
        inference_only = getattr(fuse_attention, "_INFERENCE_ONLY_SFDP_PATTERNS", ())
        for name in NS["_MMDIFF_REWRITE_NOT_ON_CPU"]:
            # Of the patterns this torch has (2.11 has none from 28 on), and of their forms it
            # has (2.15 has no training form of 13, 15 and 17 to 24).
            pattern = "_".join(name.split("_")[:4])
            if not name.startswith("_sfdp_pattern_") or not hasattr(fuse_attention, pattern):
                continue
            if not (pattern in inference_only and name.endswith("_training")):
                self.assertIn(name, rows | made)

    def test_the_fusions_listed_without_compiling_are_those_a_compile_registers(self):
        # In a fresh interpreter: here, earlier compiles have registered the fusions already.
        import json
        import subprocess
        import sys
        from embedded_text import embedded_text
        script = (embedded_text("inductor_rewrites.py") +
                  "\nimport json\nprint(json.dumps(attention_fusion_catalogue()))\n")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=300, check=True)
        listed = {r["name"]: r for r in json.loads(done.stdout.splitlines()[-1])}
        compiled_rows = {n: r for n, r in catalogue().items() if n.startswith("_sfdp_pattern_")}
        self.assertIn("_sfdp_pattern_1_inference", listed)
        self.assertEqual(listed, compiled_rows)

    def test_pattern_7s_float32_form_fuses_exactly_where_no_release_note_says_it_cannot(self):
        # The form a target focus writes: float32 operands, weights and v both cast to float16.
        def form(query, key, value):
            q, k, v = (t.permute(0, 2, 1, 3) for t in (query, key, value))
            w = (q @ k.transpose(-2, -1) / 4.0).to(torch.float32).softmax(dim=-1)
            return w.to(torch.float16) @ v.to(torch.float16)
        x = torch.randn(2, 8, 4, 16)
        _, fired = compiled(form, x, x, x)  # (2.15.0's result is float32: a bug, results.md)
        noted = "_sfdp_pattern_7_inference" in NS["_mmdiff_rewrite_install_notes"]()
        self.assertEqual("_sfdp_pattern_7_inference" in fired, not noted, (torch.__version__, fired))

    def test_a_shadowed_fusion_loses_to_the_one_its_note_names(self):
        # fuse_attention.py's own pattern functions, compiled as written (re-read from their source:
        # Dynamo does not trace functions of torch's own files).
        import inspect
        from torch._inductor.fx_passes import fuse_attention
        notes = NS["_MMDIFF_REWRITE_NOT_ON_CPU"]
        ns = {"torch": torch}
        for n in (3, 16):
            exec(compile(inspect.getsource(getattr(fuse_attention, f"_sfdp_pattern_{n}")),
                         f"<pattern {n}>", "exec"), ns)
        x = torch.randn(2, 4, 8, 16)
        one = torch.randn(1, 4, 8, 16)
        cases = (("_sfdp_pattern_3_inference", ns["_sfdp_pattern_3"], (x, x, x, 2.0, 0.0)),
                 ("_sfdp_pattern_16_bs1_inference", ns["_sfdp_pattern_16"],
                  (one, one, one, torch.randn(1, 1, 1, 4), 2.0, 0.0)))
        for shadowed, fn, args in cases:
            _, fired = compiled(fn, *args)
            first = notes[shadowed].split()[1]
            self.assertIn(first, fired, shadowed)
            self.assertNotIn(shadowed, fired)


if __name__ == "__main__":
    unittest.main()
