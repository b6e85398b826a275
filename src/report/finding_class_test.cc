// Tests for root-cause classes: each signature form lands in the class a maintainer acts on.
#include "src/report/finding_class.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TEST(FindingClass, EachSignatureFormHasTheClassAMaintainerActsOn) {
  const std::pair<const char*, FindingClass> cases[] = {
      {"value|path=inductor|values|op=mm|devices=cpu", FindingClass::kCompiledWrongResult},
      {"value|path=aot_eager|grad_values|op=bmm|devices=cpu", FindingClass::kCompiledWrongResult},
      {"dtype|path=inductor|returns|op=bmm|devices=cpu,cpu", FindingClass::kCompiledWrongResult},
      {"ignored_input|path=inductor|reads_ignored|op=addmm|devices=cpu,cpu,cpu",
       FindingClass::kCompiledWrongResult},
      {"error_behaviour|path=inductor|raises:RuntimeError|ops=addmm|devices=cpu",
       FindingClass::kCompiledRaises},
      {"backward_error|path=inductor|backward_raises|op=addmm|devices=cpu,cpu,cpu",
       FindingClass::kCompiledRaises},
      {"crash|path=aoti|stage:aoti-compile|ops=mm|devices=cpu", FindingClass::kCompiledRaises},
      {"error_behaviour|path=inductor|accepts|rule=same_dtype|op=bmm|devices=cpu,cpu",
       FindingClass::kCompiledAccepts},
      {"error_behaviour|path=torchscript|unused_op", FindingClass::kCompiledAccepts},
      {"contract|path=eager|accepts|rule=same_dtype|op=bmm|devices=cpu,cpu", FindingClass::kEager},
      {"value|path=eager|values|op=addmv|devices=cpu,cpu,cpu", FindingClass::kEager},
      {"backward_error|path=eager|backward_raises|op=addmv|devices=cpu", FindingClass::kEager},
      {"error_class|path=inductor|raises:RuntimeError|rule=grad_dtype",
       FindingClass::kErrorClassOrMeta},
      {"error_behaviour|path=inductor|raises:IndexError|rule=same_dtype|op=mm|devices=cpu,meta",
       FindingClass::kErrorClassOrMeta},
      {"contract|path=eager|raises:IndexError|rule=same_dtype|op=addmv|devices=cpu,cpu,cpu",
       FindingClass::kErrorClassOrMeta},
      {"contract|path=eager|raises:RuntimeError|op=bmm|devices=cpu,cpu", FindingClass::kEager},
      {"meta|path=eager_meta|skips_check|rule=same_dtype", FindingClass::kErrorClassOrMeta},
      {"value|path=?(inductor)|values|op=mm|devices=cpu", FindingClass::kErrorClassOrMeta},
      {"value|path=inductor|by_design=emulate_precision_casts", FindingClass::kByDesign},
  };
  for (const auto& [signature, cls] : cases)
    EXPECT_EQ(FindingClassName(ClassOfRootCause(signature)), FindingClassName(cls)) << signature;
  // Every class has a name and a title of its own.
  EXPECT_EQ(FindingClassTitle(FindingClass::kCompiledAccepts),
            "compiled: accepts what the rule rejects");
  EXPECT_EQ(FindingClassName(FindingClass::kByDesign), "by-design");
}

}  // namespace
}  // namespace mmdiff
