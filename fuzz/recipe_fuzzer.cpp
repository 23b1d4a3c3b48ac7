// libFuzzer target for reviewed workflow recipes: any bytes as a private recipe file
// (RecipeCatalog::parse: the YAML reader with its bounds, then format 1's rules).
// Besides never crashing or hanging: every accepted recipe holds the format's bounds (steps,
// planned calls, deadline, intents, a navigate step first), and its JSON form, read back as a
// YAML document, gives the same recipe.

#include "domain/web/TestOverrides.h"
#include "runs/Recipe.h"
#include "runs/RecipeCatalog.h"

#include <QByteArray>
#include <QJsonDocument>

#include <cstdint>
#include <cstdlib>

using namespace veetbot;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray yaml(reinterpret_cast<const char *>(data), qsizetype(size));
    const TestOverrides none;
    const Result<Recipe> recipe = RecipeCatalog::parse(yaml, Recipe::Source::Private, none);
    if (!recipe) {
        require(recipe.error().code.startsWith(QLatin1String("recipe.")));
        return 0;
    }
    require(size <= size_t(RecipeCatalog::kMaxDocumentBytes));
    require(!recipe->steps.isEmpty() && recipe->steps.size() <= Recipe::kMaxSteps);
    require(recipe->steps.first().kind == RecipeStep::Kind::Navigate);
    require(recipe->plannedCalls() <= Recipe::kMaxCalls);
    require(recipe->deadlineSeconds >= 1 && recipe->deadlineSeconds <= Recipe::kMaxDeadlineSeconds);
    require(!recipe->intents.isEmpty() && recipe->intents.size() <= Recipe::kMaxIntents);
    for (const QString &intent : recipe->intents)
        require(!normalizedIntent(intent).isEmpty());
    const QByteArray json = QJsonDocument(recipe->toJson()).toJson(QJsonDocument::Compact);
    const Result<Recipe> again = RecipeCatalog::parse(json, Recipe::Source::Private, none);
    require(again.ok() && *again == *recipe);
    return 0;
}
