// Tests for TorchScriptErrorLine on the texts torch 2.15.0's TorchScript produces.
#include "src/backends/torchscript_message.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TEST(TorchScriptMessage, InterpreterErrorsGiveTheOperatorsLine) {
  std::string what =
      "The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript (most recent call last):\n"
      "  File \"<string>\", line 3, in f\n"
      "def f(x0, x1):\n"
      "    v0 = torch.mm(x0, x1)\n"
      "         ~~~~~~~~ <--- HERE\n"
      "    return (v0,)\n"
      "RuntimeError: mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)\n";
  EXPECT_EQ(TorchScriptErrorLine(what),
            "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)");
}

TEST(TorchScriptMessage, CompileErrorsGiveTheirFirstNonBlankLine) {
  std::string what =
      "\nbuiltin cannot be used as a value:\n"
      "  File \"<string>\", line 2\n"
      "def f(x0):\n"
      "    v0 = x0.to(torch.float32)\n";
  EXPECT_EQ(TorchScriptErrorLine(what), "builtin cannot be used as a value:");
  EXPECT_EQ(TorchScriptErrorLine("plain message\nmore"), "plain message");
  EXPECT_EQ(TorchScriptErrorLine(""), "");
}

TEST(TorchScriptMessage, ALineThatOnlyLooksLikeAnErrorIsNotTaken) {
  // Without the interpreter's preamble, the first line stands even if a later one names an error.
  EXPECT_EQ(TorchScriptErrorLine("first\nValueError: second"), "first");
  // With it, source lines with ": " are not mistaken for the error line.
  std::string what =
      "The following operation failed in the TorchScript interpreter.\n"
      "    v0 = torch.softmax(x0, dim=-1)\n"
      "NotImplementedError: not for Bool\n";
  EXPECT_EQ(TorchScriptErrorLine(what), "not for Bool");
}

}  // namespace
}  // namespace mmdiff
