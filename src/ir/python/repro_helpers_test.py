# Tests of repro.py's fixed helpers (repro_inputs.py, repro_outcome.py, repro_meta.py,
# repro_ignored_input.py), run in one namespace after root_cause.py as repro.py runs them. The
# end-to-end tests run whole repro.py files; these check each helper on its own, on cpu.
import contextlib
import io
import math
import sys
import unittest

import torch

from embedded_text import run, run_in

RECIPE = {"kind": "normal", "seed": 1, "lo": -1.0, "hi": 1.0, "mean": 0.0, "std": 1.0,
          "special": 0.0, "zeroed": []}
# make_inputs() as EmitInputBuilder writes it for two cpu float32 inputs.
MAKE_INPUTS = """
def make_inputs():
    return [
        _mmdiff_input(RECIPE, 0, (2, 3), torch.float32, "cpu", False),  # x0
        _mmdiff_input(RECIPE, 1, (3, 2), torch.float32, "cpu", True),  # x1
    ]


GRAD_INPUTS = []
"""


def repro_namespace(*more, train=False):
    """repro.py's namespace up to its checks: imports, RECIPE, the input builder, REPRODUCER_FAILED,
    the root-cause rule and the runner, then `more`. train: both inputs require grad."""
    ns = run("repro_inputs.py", math=math, sys=sys, torch=torch, RECIPE=dict(RECIPE))
    make_inputs = MAKE_INPUTS
    if train:
        make_inputs = (make_inputs.replace('"cpu", False),', '"cpu", False, requires_grad=True),')
                       .replace('"cpu", True),', '"cpu", True, requires_grad=True),')
                       .replace("GRAD_INPUTS = []", "GRAD_INPUTS = [0, 1]"))
    exec(make_inputs, ns)
    ns["REPRODUCER_FAILED"] = 3
    return run_in(ns, "root_cause.py", "repro_outcome.py", *more)


def values(kind, index=0, numel=3, dtype=torch.float32, **recipe):
    ns = run("repro_inputs.py", math=math, torch=torch)
    return ns["_mmdiff_values"](dict(RECIPE, kind=kind, **recipe), index, numel, dtype)


class InputsTest(unittest.TestCase):
    def test_splitmix64_gives_the_reference_generators_outputs(self):
        mix = run("repro_inputs.py", math=math, torch=torch)["_mmdiff_splitmix64"]
        # The first two outputs of SplitMix64 seeded with 0, as src/support/rng_test.cc has them.
        self.assertEqual(mix(0), 0xE220A8397B1DCDAF)
        self.assertEqual(mix(0x9E3779B97F4A7C15), 0x6E789E6AA1B965F4)

    def test_values_are_those_of_the_cpp_recipe(self):
        # RecipeValues() in src/ir/input_recipe.cc for these recipes (printed with %a at 95e6484);
        # tests/generation_determinism_e2e_test.cc compares the two on generated programs.
        expected = {
            "normal": ["-0x1.790abc725e66p-2", "-0x1.26a995d11a25p+0", "-0x1.6f5c982d0443p-2"],
            "exact": ["-0x1p+0", "0x1p+0", "-0x1p+2"],
            "uniform": ["0x1.7bd0d38e60146p-1", "0x1.054353d1c313p-2", "-0x1.8ad4e901b0744p-1"],
            "grid16": ["-0x1.8p-3", "0x0p+0", "-0x1p-2"],
        }
        for kind, hexes in expected.items():
            self.assertEqual(values(kind), [float.fromhex(h) for h in hexes], kind)
        special = values("normal", 2, 6, torch.float16, seed=5, special=1.0)
        self.assertEqual([float.fromhex(h) for h in ("-0x1.ffcp+15", "inf", "-0x1.ffcp+15",
                                                     "-0x1.8p-23", "inf")], special[:5])
        self.assertTrue(math.isnan(special[5]))
        self.assertEqual(values("normal", 1, 4, torch.int8, seed=5, special=1.0),
                         [-2.0, -4.0, 3.0, -8.0])

    def test_each_value_class_stays_in_its_range(self):
        for v in values("grid16", numel=500):
            self.assertTrue(v * 16 == int(v * 16) and -2 <= v <= 2, v)
        for v in values("exact", numel=500):
            self.assertTrue(v in range(-4, 5) or abs(math.frexp(v)[0]) == 0.5, v)
        for v in values("uniform", numel=500, lo=2.0, hi=3.0):
            self.assertTrue(2.0 <= v < 3.0, v)
        for v in values("normal", numel=500, mean=10.0, std=0.5):
            self.assertTrue(7.0 <= v <= 13.0, v)
        self.assertEqual(set(values("normal", numel=200, dtype=torch.bool)), {0.0, 1.0})
        self.assertEqual(set(values("normal", numel=500, dtype=torch.uint8)),
                         {float(k) for k in range(17)})
        self.assertEqual(set(values("grid16", numel=500, dtype=torch.int32)),
                         {float(k) for k in range(-8, 9)})

    def test_special_values_are_the_ieee_specials_subnormals_and_the_largest(self):
        fi = torch.finfo(torch.bfloat16)
        for v in values("normal", numel=300, dtype=torch.bfloat16, special=1.0):
            subnormal = v != 0 and abs(v) / 2.0 ** -133 in (1, 3, 5, 7)
            self.assertTrue(math.isnan(v) or math.isinf(v) or (v == 0 and math.copysign(1, v) < 0)
                            or subnormal or abs(v) in (fi.max, fi.max / 2), v)

    def test_a_zeroed_input_is_all_zeros_and_the_others_are_not(self):
        self.assertEqual(values("exact", 1, 5, zeroed=[1]), [0.0] * 5)
        self.assertNotEqual(values("exact", 0, 5, zeroed=[1]), [0.0] * 5)

    def test_an_input_has_its_shape_dtype_device_layout_and_the_recipes_values(self):
        ns = repro_namespace()
        x0, x1 = ns["make_inputs"]()
        self.assertEqual((x0.shape, x0.dtype, x0.device.type), ((2, 3), torch.float32, "cpu"))
        self.assertTrue(x0.is_contiguous())
        self.assertEqual(x1.stride(), (1, 3))  # transposed: column-major
        self.assertEqual(x1.flatten().tolist(),
                         [torch.tensor(v).float().item() for v in values("normal", 1, 6)])


class OutcomeTest(unittest.TestCase):
    def test_an_ok_outcome_has_the_result_types_and_the_tensors(self):
        result = repro_namespace()["outcome"](lambda a, b: (a @ b, a.double()))
        self.assertEqual(result[:2], ("ok", [("torch.float32", (2, 2), "cpu"),
                                             ("torch.float64", (2, 3), "cpu")]))
        self.assertEqual(len(result[2]), 2)

    def test_a_training_outcome_ends_with_the_gradients_of_the_recipes_cotangent(self):
        ns = repro_namespace(train=True)
        result = ns["outcome"](lambda a, b: (a @ b, a.double().sum(0)))
        self.assertEqual(result[1][2:], [("torch.float32", (2, 3), "cpu"),
                                         ("torch.float32", (3, 2), "cpu")])
        a, b = ns["inputs"]()
        w0 = ns["_mmdiff_cotangent"](ns["RECIPE"], 2, (a @ b))
        w1 = ns["_mmdiff_cotangent"](ns["RECIPE"], 3, a.double().sum(0))
        # d/da of sum((a @ b) * w0) + sum(a.sum(0) * w1) and d/db, by hand.
        ga = (w0 @ b.detach().T) + w1.float().expand(2, 3)
        gb = a.detach().T @ w0
        torch.testing.assert_close(result[2][2], ga)
        torch.testing.assert_close(result[2][3], gb)
        # An input the loss does not reach gets zeros; an error in backward says so.
        result = ns["outcome"](lambda a, b: (a * 2,))
        self.assertTrue(torch.equal(result[2][2], torch.zeros(3, 2)))
        def broken(a, b):
            class Fail(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x.clone()
                @staticmethod
                def backward(ctx, g):
                    raise ValueError("no backward")
            return (Fail.apply(a),)
        failed = ns["outcome"](broken)
        self.assertEqual(failed[:2], ("error", "ValueError"))
        self.assertTrue(failed[2].startswith("in backward: "), failed)

    def test_an_error_is_its_root_causes_builtin_class_and_message(self):
        def fn(a, b):
            try:
                a @ a
            except RuntimeError as e:
                raise KeyError("wrapped") from e
        ns = repro_namespace()
        error = ns["outcome"](fn)
        self.assertEqual(error[:2], ("error", "RuntimeError"))
        self.assertIn("cannot be multiplied", error[2])
        e = KeyError("k")
        self.assertEqual(ns["error_of"](e), ("error", "KeyError", "'k'"))

    def test_inputs_that_cannot_be_built_exit_reproducer_failed_before_f_runs(self):
        ns = repro_namespace()
        ran = []
        ns["make_inputs"] = lambda: torch.zeros(2, device="no_such_device")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as exit:
            ns["outcome"](lambda *args: ran.append(args))
        self.assertEqual(exit.exception.code, 3)
        self.assertEqual(ran, [])
        self.assertRegex(out.getvalue(), r"^REPRODUCER FAILED: the inputs cannot be built here: "
                         r"RuntimeError: .*\nNothing was compared: this run says nothing about "
                         r"the finding\.\n$")

    def test_show_prints_an_error_whole_and_an_ok_result_without_its_tensors(self):
        ns = repro_namespace()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ns["show"]("eager:   ", ("error", "RuntimeError", "bad"))
            ns["show"]("compiled:", ("ok", [("torch.float32", (2,), "cpu")], [torch.zeros(2)]))
        self.assertEqual(out.getvalue(), "eager:    ('error', 'RuntimeError', 'bad')\n"
                                         "compiled: ('ok', [('torch.float32', (2,), 'cpu')])\n")

    def test_an_outcome_names_the_device_type_as_the_expected_results_do(self):
        # A cuda tensor's device is "cuda:0"; a contract repro expects "cuda" (seen on an H200:
        # every such repro.py exited 1 whatever eager returned). A stand-in for an output on cuda,
        # where no GPU is: outcome reads only dtype, shape and device.
        class OnCuda:
            dtype, shape, device = torch.float32, (2,), torch.device("cuda", 0)
        ns = repro_namespace()
        self.assertEqual(ns["outcome"](lambda *args: [OnCuda()])[1],
                         [("torch.float32", (2,), "cuda")])
        self.assertEqual(ns["outcome"](lambda a, b: (a,))[1][0][2], "cpu")

    def test_meta_must_predict_the_outcome_class_dtypes_and_shapes_not_devices(self):
        predicted = repro_namespace("repro_meta.py")["predicted"]
        self.assertEqual(predicted(("error", "RuntimeError", "a message")), ("error", "RuntimeError"))
        self.assertEqual(predicted(("ok", [("torch.float32", (2, 3), "meta")], [])),
                         ("ok", [("torch.float32", (2, 3))]))

    def test_outcome_with_zeros_zeroes_the_ignored_inputs_for_one_run(self):
        ns = repro_namespace("repro_ignored_input.py")
        ns["ZEROED"] = [1]
        ns["RECIPE"]["zeroed"] = [0]
        given = ns["RECIPE"]
        result = ns["outcome_with_zeros"](lambda a, b: (a, b))
        self.assertEqual(result[0], "ok")
        self.assertEqual(result[2][0].abs().sum().item(), 0.0)
        self.assertEqual(result[2][1].abs().sum().item(), 0.0)
        self.assertIs(ns["RECIPE"], given)
        self.assertEqual(given["zeroed"], [0])
        ns["RECIPE"]["zeroed"] = []
        self.assertNotEqual(ns["outcome"](lambda a, b: (a, b))[2][1].abs().sum().item(), 0.0)

    def test_a_backward_error_is_not_the_same_outcome_as_a_forward_error(self):
        same = repro_namespace()["same_outcome"]
        forward = ("error", "RuntimeError", "expected scalar type")
        backward = ("error", "RuntimeError", "in backward: expected scalar type")
        self.assertTrue(same(forward, ("error", "RuntimeError", "another message")))
        self.assertFalse(same(forward, backward))
        self.assertFalse(same(forward, ("error", "TypeError", "expected scalar type")))
        ok = ("ok", [("torch.float32", (2,), "cpu")], [])
        self.assertTrue(same(ok, ("ok", [("torch.float32", (2,), "cpu")], [torch.ones(2)])))
        self.assertFalse(same(ok, ("ok", [("torch.float64", (2,), "cpu")], [])))

    def test_conclude_stops_at_the_first_attempt_that_shows_the_finding(self):
        conclude = repro_namespace()["conclude"]
        tries = []
        def shows_on_the_second():
            tries.append(1)
            assert len(tries) < 2, "the finding"
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(AssertionError):
            conclude(shows_on_the_second, 3)
        self.assertEqual(len(tries), 2)
        self.assertEqual(out.getvalue(), "attempt 1 of 3: no difference; trying again\n"
                                         "attempt 2 of 3: the finding shows\n")
        tries.clear()
        with contextlib.redirect_stdout(io.StringIO()):
            conclude(lambda: tries.append(1), 3)  # never shows it: returns after every attempt
        self.assertEqual(len(tries), 3)

    def test_calls_before_run_fn_on_each_calls_inputs_and_recipe_in_order(self):
        ns = repro_namespace("repro_calls_before.py")
        ns["CALLS_BEFORE"] = [(dict(RECIPE, seed=7), [(1, 3), (3, 4)]),
                              (dict(RECIPE, seed=8), [(5, 3), (3, 2)])]
        exec("def make_inputs_before(recipe, shapes):\n"
             "    return [_mmdiff_input(recipe, 0, shapes[0], torch.float32, 'cpu', False),\n"
             "            _mmdiff_input(recipe, 1, shapes[1], torch.float32, 'cpu', False)]\n", ns)
        seen = []
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ns["calls_before"](lambda a, b: seen.append((tuple(a.shape), a.flatten()[0].item()))
                               or (a @ b,))
        self.assertEqual([s for s, _ in seen], [(1, 3), (5, 3)])
        first = ns["_mmdiff_values"](dict(RECIPE, seed=7), 0, 3, torch.float32)[0]
        self.assertEqual(seen[0][1], torch.tensor(first).float().item())
        self.assertEqual(out.getvalue().count("before:"), 2)
        with contextlib.redirect_stdout(io.StringIO()) as quiet:
            ns["calls_before"](lambda a, b: (a @ b,), quiet=True)
        self.assertEqual(quiet.getvalue(), "")

    def test_outcome_with_zeros_restores_the_recipe_when_the_script_exits(self):
        ns = repro_namespace("repro_ignored_input.py")
        ns["ZEROED"] = [1]
        given = ns["RECIPE"]
        ns["make_inputs"] = lambda: 1 / 0
        with contextlib.redirect_stdout(io.StringIO()), self.assertRaises(SystemExit):
            ns["outcome_with_zeros"](lambda *args: args)
        self.assertIs(ns["RECIPE"], given)
        self.assertEqual(given["zeroed"], [])


if __name__ == "__main__":
    unittest.main()
