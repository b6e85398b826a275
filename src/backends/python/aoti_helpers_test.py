# Tests of aoti_helpers.py, run in one namespace after root_cause.py as aoti_export.cc runs them,
# on cpu: export, and the errors of both steps. Compiling a package takes a C++ compiler and many
# seconds; the end-to-end tests (AotiE2E) do it through the worker.
import os
import tempfile
import unittest

import torch

from embedded_text import run

NS = run("root_cause.py", "aoti_helpers.py")


class AotiHelpersTest(unittest.TestCase):
    def test_export_gives_the_exported_program_of_f(self):
        source = "def f(x0, x1):\n    v0 = torch.mm(x0, x1)\n    return (v0,)\n"
        x0, x1 = torch.ones(2, 3), torch.ones(3, 4)
        result = NS["export"](source, [x0, x1])
        self.assertEqual(result[0], "ok")
        self.assertIsInstance(result[1], torch.export.ExportedProgram)
        (out,) = result[1].module()(x0, x1)
        self.assertTrue(torch.equal(out, torch.full((2, 4), 3.0)))

    def test_an_export_error_is_its_root_causes_class_type_and_message(self):
        source = "def f(x0):\n    v0 = x0.reshape((7,))\n    return (v0,)\n"
        result = NS["export"](source, [torch.ones(2, 3)])
        self.assertEqual(len(result), 4)
        self.assertEqual(result[:2], ("error", "RuntimeError"))
        self.assertIn("invalid for input of size 6", result[3])

    def test_a_package_error_is_its_root_cause(self):
        path = os.path.join(tempfile.mkdtemp(), "program.pt2")
        result = NS["package"]("not an exported program", path)
        self.assertEqual(len(result), 4)
        self.assertEqual(result[0], "error")
        self.assertEqual(result[2].split(".")[0], "builtins")
        self.assertFalse(os.path.exists(path))


if __name__ == "__main__":
    unittest.main()
