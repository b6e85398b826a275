# Tests of root_cause.py, the root-cause rule the worker and every repro.py share: the innermost
# exception through __cause__ and __context__, named by its first builtin class.
import unittest

from embedded_text import run

root_cause = run("root_cause.py")["root_cause"]


def raised(fn):
    try:
        fn()
    except Exception as e:
        return e
    raise AssertionError(f"{fn} did not raise")


class Wrapper(RuntimeError):  # as torch wraps errors: a class of its own over a builtin one
    __module__ = "torch._dynamo.exc"


class Missing(KeyError):
    __module__ = "somewhere"

    class Deeper(LookupError):
        __module__ = "somewhere"


class Mixin(Exception):  # comes before ValueError in the MRO, but is not builtin
    __module__ = "somewhere"


class MixedIn(Mixin, ValueError):
    __module__ = "somewhere"


class RootCauseTest(unittest.TestCase):
    def test_an_exception_without_a_chain_is_its_own_root(self):
        self.assertEqual(root_cause(ValueError("bad shape")),
                         ("ValueError", "builtins.ValueError", "bad shape"))

    def test_raise_from_follows_the_cause(self):
        def f():
            try:
                raise IndexError("index 4 is out of bounds")
            except IndexError as inner:
                raise Wrapper("backend compiler failed") from inner
        e = raised(f)
        self.assertIsInstance(e, Wrapper)
        self.assertEqual(root_cause(e),
                         ("IndexError", "builtins.IndexError", "index 4 is out of bounds"))

    def test_an_exception_raised_while_handling_another_follows_the_context(self):
        def f():
            try:
                {}["k"]
            except KeyError:
                raise Wrapper("while handling")
        e = raised(f)
        self.assertIsNone(e.__cause__)
        self.assertEqual(root_cause(e), ("KeyError", "builtins.KeyError", "'k'"))

    def test_the_cause_comes_before_the_context_at_every_step(self):
        def f():
            try:
                raise TypeError("the context")
            except TypeError:
                raise Wrapper("outer") from OverflowError("the cause")
        e = raised(f)
        self.assertIsInstance(e.__context__, TypeError)
        self.assertEqual(root_cause(e), ("OverflowError", "builtins.OverflowError", "the cause"))

        def g():  # one step further in: the context's own cause comes before its context
            try:
                f()
            except Wrapper:
                raise Wrapper("outermost")
        e = raised(g)
        self.assertIsNone(e.__cause__)
        self.assertIsInstance(e.__context__.__context__, TypeError)
        self.assertEqual(root_cause(e)[0], "OverflowError")

    def test_a_chain_of_several_steps_ends_at_the_innermost(self):
        def f():
            try:
                try:
                    raise AttributeError("innermost")
                except AttributeError as a:
                    raise Wrapper("middle") from a
            except Wrapper:
                raise Wrapper("outer")
        self.assertEqual(root_cause(raised(f))[0::2], ("AttributeError", "innermost"))

    def test_from_none_hides_the_context_from_tracebacks_not_from_the_rule(self):
        def f():
            try:
                raise IndexError("hidden")
            except IndexError:
                raise Wrapper("shown") from None
        e = raised(f)
        self.assertTrue(e.__suppress_context__)
        self.assertEqual(root_cause(e)[0], "IndexError")

    def test_a_subclass_is_named_by_its_first_builtin_class_and_its_own_type(self):
        self.assertEqual(root_cause(Missing("x")), ("KeyError", "somewhere.Missing", "'x'"))
        self.assertEqual(root_cause(Missing.Deeper("y")),
                         ("LookupError", "somewhere.Missing.Deeper", "y"))
        self.assertEqual(root_cause(Wrapper("z")),
                         ("RuntimeError", "torch._dynamo.exc.Wrapper", "z"))
        # The first builtin class in the MRO, not the first base class.
        self.assertEqual(root_cause(MixedIn("m"))[:2], ("ValueError", "somewhere.MixedIn"))

    def test_the_message_is_the_first_line_of_the_stripped_text(self):
        self.assertEqual(root_cause(RuntimeError("\n\n  first line  \nsecond"))[2], "first line  ")
        self.assertEqual(root_cause(RuntimeError())[2], "")
        self.assertEqual(root_cause(RuntimeError("   \n  "))[2], "")

    def test_a_torchscript_interpreter_error_is_its_operators_last_line(self):
        text = ("The following operation failed in the TorchScript interpreter.\n"
                "Traceback of TorchScript (most recent call last):\n"
                "  File \"<string>\", line 50, in AD_matmul_bw_size\n"
                "RuntimeError: expected m1 and m2 to have the same dtype  \n")
        self.assertEqual(root_cause(RuntimeError(text))[2],
                         "RuntimeError: expected m1 and m2 to have the same dtype")

    def test_a_type_whose_module_is_not_a_string_is_still_named(self):
        class Odd(ArithmeticError):
            __module__ = None
        self.assertEqual(root_cause(Odd("o")),
                         ("ArithmeticError",
                          "None.RootCauseTest.test_a_type_whose_module_is_not_a_string_is_still_"
                          "named.<locals>.Odd", "o"))


if __name__ == "__main__":
    unittest.main()
