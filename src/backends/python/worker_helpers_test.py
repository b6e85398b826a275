# Tests of worker_helpers.py, run in one namespace after root_cause.py as the worker's interpreter
# runs them (embedded_python.cc), on cpu with torch.compile's "eager" backend, which compiles
# nothing with a C++ compiler. The end-to-end tests run them through the worker with Inductor.
import unittest

import torch

from embedded_text import run

NS = run("root_cause.py", "inductor_rewrites.py", "inductor_lowerings.py", "repro_module.py",
         "knob_variants.py", "worker_helpers.py")
SOURCE = "def f(x0, x1):\n    v0 = torch.mm(x0, x1)\n    return (v0,)\n"


def args():
    return [torch.ones(2, 3), torch.ones(3, 4)]


class Missing(KeyError):
    __module__ = "somewhere"


class InternalsTest(unittest.TestCase):
    def test_inductors_choices_are_read_from_the_code_it_wrote(self):
        code = """
buf0 = extern_kernels.mm(arg0_1, arg1_1, out=buf0)
buf1 = torch.ops.aten.addmm.default(arg2_1, buf0, arg1_1)
cpp_fused_0 = async_compile.cpp_pybinding(['float*'], '''...''')
triton_poi_1 = async_compile.triton('triton_', '''...''')
"""
        self.assertEqual(NS["_mmdiff_internals"]([code], {}),
                         ["extern:mm", "fallback:addmm", "fused:2"])
        self.assertEqual(NS["_mmdiff_internals"]([code + "triton_tem_fused_mm_2\n" + code], {}),
                         ["extern:mm", "fallback:addmm", "fused:3+", "template"])
        self.assertEqual(NS["_mmdiff_internals"](["buf0 = arg0_1"], {}), ["fused:0"])

    def test_patterns_are_the_inductor_counters_that_moved_but_the_cache_and_call_counts(self):
        delta = {"pattern_matcher_count": 2, "decompose_mm": 1, "unchanged": 0,
                 "fxgraph_cache_hit": 1, "extern_calls": 3, "async_compile_cache_miss": 1}
        self.assertEqual(NS["_mmdiff_internals"]([], delta),
                         ["pattern:decompose_mm", "pattern:pattern_matcher_count"])

    def test_inductor_hands_the_code_it_writes_to_the_helpers(self):
        from torch._inductor.graph import GraphLowering
        del NS["_mmdiff_codes"][:]
        GraphLowering.save_output_code("the module's source")
        self.assertEqual(NS["_mmdiff_codes"], ["the module's source"])


class CallTest(unittest.TestCase):
    def test_an_error_is_its_root_cause_with_the_compile_info(self):
        def fn(*xs):
            try:
                raise Missing("k")
            except KeyError as e:
                raise RuntimeError("wrapped") from e
        result = NS["_mmdiff_call"](fn, args())
        self.assertEqual(result[:4], ("error", "KeyError", "somewhere.Missing", "'k'"))
        compiled, reused, hits, misses, internals, phases = result[4]
        self.assertEqual((compiled, hits, misses, internals), (False, 0, 0, []))
        self.assertEqual(phases["dynamo"], 0.0)  # a plain function: nothing compiled

    def test_a_program_compiles_once_and_its_next_runs_reuse_it(self):
        key = "eager|"
        fn = NS["_mmdiff_function"](SOURCE, "eager", key)
        first = NS["_mmdiff_call"](fn, args())
        self.assertEqual(first[0], "ok")
        self.assertTrue(torch.equal(first[1][0], torch.full((2, 4), 3.0)))
        self.assertEqual(first[2][:2], (True, False))  # compiled, not reused
        self.assertIs(NS["_mmdiff_function"](SOURCE, "eager", key), fn)
        again = NS["_mmdiff_call"](fn, args())
        self.assertEqual(again[2][:2], (False, True))
        # Another knob is another function; a function that compiled four times is replaced, as
        # dynamo would silently run it in eager past its recompile limit.
        self.assertIsNot(NS["_mmdiff_function"](SOURCE, "eager", "eager|knob"), fn)
        NS["_mmdiff_program"]["fns"][key][1] = 4
        self.assertIsNot(NS["_mmdiff_function"](SOURCE, "eager", key), fn)
        self.assertFalse(NS["_mmdiff_program"]["reused"])

    def test_a_reused_function_reports_the_rewrites_its_compiles_applied(self):
        fired = NS["_mmdiff_rewrites_fired"]
        fn = NS["_mmdiff_function"](SOURCE, "eager", "eager|rw")
        # A call in which the observer records a rewrite firing.
        fires = NS["_mmdiff_timed"](
            lambda: fired.append("_sfdp_pattern_5_inference") or list(fn(*args())))
        self.assertIn("rewrite:_sfdp_pattern_5_inference", fires[2][4])
        self.assertIs(NS["_mmdiff_function"](SOURCE, "eager", "eager|rw"), fn)
        again = NS["_mmdiff_call"](fn, args())  # nothing fires: it reuses the compiled function
        self.assertEqual(again[2][:2], (False, True))
        self.assertIn("rewrite:_sfdp_pattern_5_inference", again[2][4])
        NS["_mmdiff_forget"]()
        fresh = NS["_mmdiff_function"](SOURCE, "eager", "eager|rw")
        self.assertNotIn("rewrite:_sfdp_pattern_5_inference",
                         NS["_mmdiff_call"](fresh, args())[2][4])

    def test_each_function_has_a_source_file_of_its_own(self):
        # torch 2.11 runs functions without a source file through one shared frame, whose cache
        # filled after 8 of them: the ninth (an ablation's variants of one program) failed with
        # "Dynamo recompile limit exceeded". Nine keys of one program must all compile and run.
        import inspect
        import linecache
        first, second = NS["_mmdiff_exec"](SOURCE, "a")["f"], NS["_mmdiff_exec"](SOURCE, "b")["f"]
        self.assertNotEqual(first.__code__.co_filename, second.__code__.co_filename)
        self.assertEqual(inspect.getsource(second), SOURCE)
        for i in range(9):
            fn = NS["_mmdiff_function"](SOURCE, "eager", f"eager|knob{i}")
            self.assertEqual(NS["_mmdiff_call"](fn, args())[0], "ok", i)
        files = [f"<mmdiff eager|knob{i}>" for i in range(9)]
        self.assertTrue(all(f in linecache.cache for f in files))
        other = SOURCE.replace("torch.mm(x0, x1)", "torch.mm(x0, x1) * 2")
        NS["_mmdiff_function"](other, "eager", "eager|")  # another program drops the files
        self.assertFalse(any(f in linecache.cache for f in files))
        self.assertEqual(linecache.getlines("<mmdiff eager|>"), other.splitlines(True))

    def test_a_function_that_keeps_failing_to_compile_is_replaced(self):
        # A failed compile leaves nothing cached, so each call tries again; Dynamo fails every
        # try past 256 of one function.
        bad = SOURCE.replace("torch.mm(x0, x1)", "torch.mm(x0, x0)")  # fails while tracing
        fn = NS["_mmdiff_function"](bad, "eager", "eager|")
        self.assertEqual(NS["_mmdiff_call"](fn, args())[0], "error")
        self.assertEqual(NS["_mmdiff_program"]["fns"]["eager|"][1:3], [0, 1])  # tried, no graph
        NS["_mmdiff_program"]["fns"]["eager|"][2] = 64
        self.assertIsNot(NS["_mmdiff_function"](bad, "eager", "eager|"), fn)

    def test_a_new_program_starts_afresh(self):
        fn = NS["_mmdiff_function"](SOURCE, "eager", "eager|")
        NS["_mmdiff_call"](fn, args())
        other = SOURCE.replace("torch.mm(x0, x1)", "torch.mm(x0, x1) * 2")
        fresh = NS["_mmdiff_function"](other, "eager", "eager|")
        self.assertIsNot(fresh, fn)
        self.assertEqual(list(NS["_mmdiff_program"]["fns"]), ["eager|"])
        result = NS["_mmdiff_call"](fresh, args())
        self.assertEqual(result[2][:2], (True, False))
        self.assertTrue(torch.equal(result[1][0], torch.full((2, 4), 6.0)))

    def test_forget_makes_the_same_program_start_afresh(self):
        fn = NS["_mmdiff_function"](SOURCE, "eager", "eager|")
        NS["_mmdiff_call"](fn, args())
        self.assertIs(NS["_mmdiff_function"](SOURCE, "eager", "eager|"), fn)  # reused
        NS["_mmdiff_forget"]()
        fresh = NS["_mmdiff_function"](SOURCE, "eager", "eager|")
        self.assertIsNot(fresh, fn)
        self.assertFalse(NS["_mmdiff_program"]["reused"])
        self.assertEqual(NS["_mmdiff_call"](fresh, args())[2][:2], (True, False))  # compiled

    def test_a_call_says_where_its_time_went(self):
        fn = NS["_mmdiff_function"](SOURCE.replace("mm(x0, x1)", "mm(x0, x1) + 1"), "aot_eager", "aot_eager|")
        phases = NS["_mmdiff_call"](fn, args())[2][5]
        self.assertEqual(sorted(phases), ["aot_autograd", "cpp_compile", "dynamo",
                                          "inductor_codegen", "inductor_lowering",
                                          "inductor_other", "run"])
        self.assertGreater(phases["dynamo"], 0)  # Dynamo traced it, AOTAutograd compiled it
        self.assertGreater(phases["aot_autograd"], 0)
        self.assertEqual(phases["cpp_compile"], 0)  # no Inductor
        again = NS["_mmdiff_call"](fn, args())[2][5]
        self.assertEqual((again["dynamo"], again["aot_autograd"]), (0, 0))  # ran, compiled nothing
        self.assertGreater(again["run"], 0)

    def test_phases_do_not_overlap(self):
        # The C++ compiler ran twice: once during code generation, once loading the module.
        metrics = {"_compile.compile_inner": [3.0], "OutputGraph.call_user_compiler": [2.5],
                   "compile_fx_inner": [2.0], "compile_file": [1.0, 0.5],
                   "GraphLowering.run": [0.25], "GraphLowering.codegen": [1.125],
                   "PyCodeCache.load_by_key_path": [0.5]}
        phases = NS["_mmdiff_phases"](metrics, 3.25)
        self.assertEqual(phases, {"dynamo": 0.5, "aot_autograd": 0.5, "inductor_lowering": 0.25,
                                  "inductor_codegen": 0.125, "cpp_compile": 1.5,
                                  "inductor_other": 0.125, "run": 0.25})
        self.assertAlmostEqual(sum(phases.values()), 3.25)

    def test_a_call_that_leaves_autocast_on_is_undone_and_says_so(self):
        state = NS["_mmdiff_autocast_state"]
        before = state()

        def leaks(*xs):  # what a compiled graph does that raises between its enter and exit nodes
            torch.autocast_increment_nesting()
            torch.set_autocast_dtype("cpu", torch.float16)
            torch.set_autocast_enabled("cpu", True)
            raise RuntimeError("inside the region")
        result = NS["_mmdiff_call"](leaks, args())
        self.assertEqual(result[:2], ("error", "RuntimeError"))
        self.assertEqual(state(), before)
        self.assertIn("leak:autocast", result[4][4])
        self.assertEqual(torch.mm(*args()).dtype, torch.float32)  # the next run: no autocast

    def test_a_compiled_region_that_raises_leaves_no_autocast_behind(self):
        # Dynamo's lowering of torch.autocast leaks when the graph raises (pytorch#195488): on
        # 2.11.0 cpu autocast stays on; the helpers put the state back either way.
        source = ("def f(x0, x1):\n    with torch.autocast('cpu', dtype=torch.bfloat16):\n"
                  "        v0 = torch.mm(x0, x1)\n    return (v0,)\n")
        fn = NS["_mmdiff_function"](source, "eager", "eager|autocast")
        before = NS["_mmdiff_autocast_state"]()
        flags = torch.ones(2, 2, dtype=torch.bool)  # "addmm_impl_cpu_" not implemented for 'Bool'
        result = NS["_mmdiff_call"](fn, [flags, flags])
        self.assertEqual(result[:2], ("error", "NotImplementedError"))
        self.assertEqual(NS["_mmdiff_autocast_state"](), before)
        self.assertEqual(torch.mm(*args()).dtype, torch.float32)

    def test_a_knob_is_in_force_during_the_call_only(self):
        import torch._inductor.config as config
        seen = []

        def fn():
            seen.append((config.emulate_precision_casts, config.max_autotune_gemm_backends,
                         torch.is_grad_enabled()))
            return [torch.zeros(1)]
        settings = "{'emulate_precision_casts': True, 'max_autotune_gemm_backends': 'CPP'}"
        self.assertEqual(NS["_mmdiff_call"](fn, [], settings, True)[0], "ok")
        NS["_mmdiff_call"](fn, [])
        self.assertEqual(seen, [(True, "CPP", False),
                                (False, config.max_autotune_gemm_backends, True)])
        self.assertNotEqual(config.max_autotune_gemm_backends, "CPP")

    def test_no_template_choice_under_cpp_alone_is_unsupported_not_an_error(self):
        from torch._inductor.select_algorithm import NoValidChoicesError

        def fn():
            raise RuntimeError("lowering failed") from NoValidChoicesError("No choices exist")
        only_cpp = "{'max_autotune': True, 'max_autotune_gemm_backends': 'CPP'}"
        result = NS["_mmdiff_call"](fn, [], only_cpp)
        self.assertEqual(result[0], "unsupported")
        self.assertIn("no C++ GEMM template takes it", result[1])
        # Without the restriction the same failure is the path's error, a finding.
        self.assertEqual(NS["_mmdiff_call"](fn, [], "{'max_autotune': True}")[0], "error")


class ModelTest(unittest.TestCase):
    """A program with weights runs as its model (module_call, repro_module.py)."""
    MODEL = SOURCE.replace("x1", "w") + (
        "\n\nclass Model(torch.nn.Module):\n"
        "    def __init__(self, w):\n"
        "        super().__init__()\n"
        "        self.w = w\n\n"
        "    def forward(self, x0):\n"
        "        return f(x0, self.w)\n\n\n"
        "WEIGHTS = [1]\nPARAMETERS = [1]\nFORWARD = [0]\n")

    def test_the_model_holds_the_weights_and_is_made_again_only_for_other_weights(self):
        made = []
        ns = NS["_mmdiff_exec"](self.MODEL, "model")

        def compiled(model):
            made.append(model)
            return model
        call = NS["module_call"](compiled, ns)
        x, w = torch.ones(2, 3), torch.ones(3, 4)
        self.assertTrue(torch.equal(call(x, w)[0], torch.full((2, 4), 3.0)))
        self.assertIsInstance(made[0].w, torch.nn.Parameter)
        self.assertEqual([n for n, _ in made[0].named_parameters()], ["w"])
        call(x * 2, w.clone())  # the same weights, bit for bit: the same model
        self.assertEqual(len(made), 1)
        self.assertIs(call.ran[1], made[0].w)  # gradients are the model's parameters'
        call(x, w * 2)  # other weights: a model of its own
        self.assertEqual(len(made), 2)
        nan = torch.full((3, 4), float("nan"))
        call(x, nan)
        call(x, nan.clone())  # NaN weights are the same weights too
        self.assertEqual(len(made), 3)

    def test_a_training_models_gradients_are_its_parameters(self):
        key = "eager|model"
        fn = NS["_mmdiff_function"](self.MODEL, "eager", key)
        x, w = torch.ones(2, 3), torch.ones(3, 4).requires_grad_()
        out = NS["_mmdiff_call"](fn, [x, w])
        self.assertEqual(out[0], "ok")
        grads = NS["_mmdiff_backward"](out[1], [torch.ones(2, 4)], [1])
        self.assertEqual(grads[0], "ok")
        self.assertTrue(torch.equal(grads[1][0], torch.full((3, 4), 2.0)))


if __name__ == "__main__":
    unittest.main()
