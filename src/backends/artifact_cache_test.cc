// Tests for ArtifactCache: reuse counts runs, the least recently used entry goes first.
#include "src/backends/artifact_cache.h"

#include <gtest/gtest.h>

#include <memory>

namespace mmdiff {
namespace {

TEST(ArtifactCache, ReuseCountsRunsAndTheLeastRecentlyUsedIsDropped) {
  ArtifactCache<std::shared_ptr<int>> cache(2);
  EXPECT_EQ(cache.Use("a"), nullptr);
  auto a = std::make_shared<int>(1);
  std::weak_ptr<int> a_alive = a;
  EXPECT_EQ(cache.Add("a", std::move(a)).runs, 1);
  cache.Add("b", std::make_shared<int>(2));
  ASSERT_NE(cache.Use("a"), nullptr);  // a is now the most recent
  EXPECT_EQ(cache.Use("a")->runs, 3);
  cache.Add("c", std::make_shared<int>(3));  // drops b, not a
  EXPECT_EQ(cache.Use("b"), nullptr);
  ASSERT_NE(cache.Use("a"), nullptr);
  EXPECT_EQ(*cache.Use("c")->artifact, 3);
  EXPECT_EQ(cache.size(), 2u);
  cache.Add("d", std::make_shared<int>(4));  // drops a, destroying its artifact
  EXPECT_TRUE(a_alive.expired());
}

TEST(ArtifactCache, ClearForgetsEveryEntrySoTheNextRunCompilesAgain) {
  ArtifactCache<std::shared_ptr<int>> cache(4);
  auto a = std::make_shared<int>(1);
  std::weak_ptr<int> a_alive = a;
  cache.Add("a", std::move(a));
  cache.Add("b", std::make_shared<int>(2));
  cache.Clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_TRUE(a_alive.expired());
  EXPECT_EQ(cache.Use("a"), nullptr);
  EXPECT_EQ(cache.Add("a", std::make_shared<int>(3)).runs, 1);  // compiled again
}

TEST(ArtifactCache, TheFirstRunCompilesLaterOnesReuse) {
  CompileInfo first = CompileInfoFor(1), third = CompileInfoFor(3);
  EXPECT_TRUE(first.present && first.compiled && !first.reused);
  EXPECT_TRUE(third.present && !third.compiled && third.reused);
}

}  // namespace
}  // namespace mmdiff
