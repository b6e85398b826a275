# Tests of inductor_lowerings.py on real torch and Inductor (cpu): the lowerings a product can get on
# this CPU are listed with why each that cannot be reached here cannot, the micro-kernel that
# max-autotune's C++ template makes is recorded under a name the listing has, as reachable, a
# fused epilogue on a product returned as well is named apart, and the observer records in an
# interpreter where Inductor was not imported before it.
import unittest

import torch
import torch._dynamo
import torch._inductor.config

from embedded_text import run

NS = run("inductor_lowerings.py")
CATALOGUE = {row["name"]: row for row in NS["lowering_catalogue"]()}


def isa():
    from torch._inductor import cpu_vec_isa
    return cpu_vec_isa.pick_vec_isa()


class LoweringCatalogueTest(unittest.TestCase):
    def test_every_row_is_a_family_kernel_with_a_note_or_none(self):
        self.assertGreater(len(CATALOGUE), 20)
        for name, row in CATALOGUE.items():
            self.assertTrue(name.startswith("lowering:"), name)
            self.assertEqual((row["kind"], row["family"]), ("kernel", True), name)
            self.assertIsInstance(row["note"], str)
        for name in ("lowering:extern.mm", "lowering:template.CppGemmTemplate",
                     "lowering:mkldnn._linear_pointwise.default:relu",
                     "lowering:mkldnn._linear_pointwise.binary:add"):
            self.assertEqual(CATALOGUE[name]["note"], "", name)

    def test_a_micro_kernel_for_another_isa_or_quantized_weights_says_why(self):
        from torch._inductor.cpu_vec_isa import VecAMX, VecAVX2, VecAVX512
        amx = CATALOGUE["lowering:micro_gemm.CppMicroGemmAMX.VecAMX.bfloat16"]
        self.assertEqual(amx["note"] == "", isinstance(isa(), VecAMX), amx)
        if not isinstance(isa(), VecAMX):
            self.assertIn("this CPU's is " + type(isa()).__name__, amx["note"])
        avx512 = CATALOGUE["lowering:micro_gemm.CppMicroGemmFP32Vec.VecAVX512.float32"]
        self.assertEqual(avx512["note"] == "", isinstance(isa(), VecAVX512), avx512)
        avx2 = CATALOGUE["lowering:micro_gemm.CppMicroGemmFP32Vec.VecAVX2.float32"]
        self.assertEqual(avx2["note"] == "", isinstance(isa(), VecAVX2), avx2)
        woq = CATALOGUE["lowering:micro_gemm.CppMicroGemmFP32Vec.VecAVX512.bfloat16_int8"]
        self.assertIn("quantized operands (bfloat16 by int8)", woq["note"])
        self.assertIn("does not generate",
                      CATALOGUE["lowering:mkldnn._linear_pointwise.default:leaky_relu"]["note"])

    def test_the_template_records_its_micro_kernel_as_the_listing_names_it(self):
        NS["install_lowering_observer"]()
        NS["take_lowerings"]()
        model = torch.nn.Linear(33, 64).eval()
        torch._dynamo.reset()
        settings = {"freezing": True, "max_autotune": True, "max_autotune_gemm_backends": "CPP",
                    "force_disable_caches": True}
        x = torch.randn(5, 33)
        with torch._inductor.config.patch(settings), torch.no_grad():
            out = torch.compile(model, fullgraph=True)(x)
            want = model(x)
        torch.testing.assert_close(out, want)  # observing changes no result
        seen = NS["take_lowerings"]()
        self.assertIn("lowering:template.CppGemmTemplate", seen)
        micro = [n for n in seen if n.startswith("lowering:micro_gemm.")]
        self.assertEqual(len(micro), 1, seen)
        self.assertIn(micro[0], CATALOGUE)
        self.assertEqual(CATALOGUE[micro[0]]["note"], "", micro[0])
        self.assertTrue(micro[0].endswith(".float32"), micro[0])
        self.assertIn("lowering:micro_gemm_tail.m", seen)  # 5 rows: not a multiple of a block

    def test_a_fused_epilogue_on_a_product_returned_as_well_is_named_apart(self):
        NS["install_lowering_observer"]()
        settings = {"max_autotune": True, "max_autotune_gemm_backends": "CPP",
                    "force_disable_caches": True}
        a, b = torch.randn(8, 4, 8), torch.randn(8, 8, 4)

        def lowered(fn):
            NS["take_lowerings"]()
            torch._dynamo.reset()
            with torch._inductor.config.patch(settings), torch.no_grad():
                try:  # pytorch#185405 (2.11.0) fails the shared form: its names are still taken
                    torch.compile(fn, fullgraph=True)(a, b)
                except Exception:
                    pass
            return NS["take_lowerings"]()

        shared = "lowering:template_shared_product.CppBmmTemplate"
        alone = lowered(lambda x, y: torch.relu(torch.bmm(x, y)))
        self.assertIn("lowering:template.CppBmmTemplate", alone)
        self.assertIn("lowering:template_epilogue.relu", alone)
        self.assertNotIn(shared, alone)
        both = lowered(lambda x, y: (lambda m: (m, torch.relu(m)))(torch.bmm(x, y)))
        self.assertIn(shared, both)
        self.assertIn(shared, CATALOGUE)
        self.assertEqual(CATALOGUE[shared]["note"], "")

    def test_the_observer_records_where_inductor_was_not_imported_before_it(self):
        # A fresh interpreter: the observer's imports come first, and must still observe.
        import os
        import subprocess
        import sys
        script = (
            "import torch, torch._inductor.config as c\n"
            "from embedded_text import run\n"
            "ns = run('inductor_lowerings.py')\n"
            "ns['install_lowering_observer']()\n"
            "with c.patch({'max_autotune': True, 'max_autotune_gemm_backends': 'CPP',\n"
            "              'force_disable_caches': True}):\n"
            "    torch.compile(torch.bmm)(torch.randn(2, 3, 4), torch.randn(2, 4, 5))\n"
            "print(sorted(ns['take_lowerings']()))\n")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn("'lowering:template.CppBmmTemplate'", out.stdout)


if __name__ == "__main__":
    unittest.main()
