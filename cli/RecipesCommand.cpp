#include "RecipesCommand.h"

#include "CommandOutput.h"
#include "domain/web/TestOverrides.h"
#include "runs/RecipeCatalog.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>

namespace veetbot {

using namespace CommandOutput;

namespace {

const QString kCommand = QStringLiteral("recipes");

QString sourceString(Recipe::Source source)
{
    return source == Recipe::Source::Shipped ? QStringLiteral("shipped")
                                             : QStringLiteral("private");
}

QJsonObject summaryOf(const Recipe &recipe)
{
    return QJsonObject{{QStringLiteral("id"), recipe.id},
                       {QStringLiteral("version"), recipe.version},
                       {QStringLiteral("title"), recipe.title},
                       {QStringLiteral("origin"), recipe.origin},
                       {QStringLiteral("source"), sourceString(recipe.source)},
                       {QStringLiteral("intents"), QJsonArray::fromStringList(recipe.intents)}};
}

} // namespace

int runRecipesCommand(const QStringList &arguments, const ModelKeyReader &readKey)
{
    // `run` takes `veetbot run`'s options, which this parser does not know: it goes on there.
    if (arguments.value(1) == QLatin1String("run")) {
        if (arguments.size() < 3 || arguments.at(2).startsWith(u'-')) {
            QTextStream(stderr) << "veetbot recipes: run needs a recipe's id: veetbot recipes run "
                                   "ID --profile ID [veetbot run's options]\n";
            return kExitUsage;
        }
        return runRecipe(arguments.at(2), QStringList{arguments.constFirst()} + arguments.mid(3),
                         readKey);
    }
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Reviewed workflow recipes: fixed steps on one website that run without a model when "
        "your whole task is one of a recipe's intents (docs/recipes.md). Shipped recipes come "
        "with the program; your own are *.yaml files of mode 0600 in "
        "$XDG_CONFIG_HOME/veetbot/recipes (mode 0700).\n\n"
        "  list                  every recipe, and every file that was refused\n"
        "  show ID               one recipe whole\n"
        "  run ID --profile ID   run it (with veetbot run's options: --approver, --grant...)"));
    parser.addHelpOption();
    if (const std::optional<int> exit = parseOrExit(parser, arguments, kCommand))
        return *exit;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (action != QLatin1String("list") && action != QLatin1String("show"))
        return usage(kCommand, QStringLiteral("unknown or missing action"), parser);
    if (positional.size() != (action == QLatin1String("list") ? 1 : 2))
        return usage(kCommand, QStringLiteral("wrong number of arguments"), parser);

    const Result<TestOverrides> overrides = TestOverrides::fromEnvironment();
    if (!overrides)
        return usage(kCommand, overrides.error().message, parser);
    const Result<RecipeCatalog> catalog = RecipeCatalog::load(*overrides);
    if (!catalog)
        return printError(catalog.error());
    if (action == QLatin1String("show")) {
        const std::optional<Recipe> recipe = catalog->find(positional.at(1));
        if (!recipe)
            return printError(recipeError(QStringLiteral("recipe.not_found")));
        QJsonObject shown = recipe->toJson();
        shown.insert(QStringLiteral("source"), sourceString(recipe->source));
        printJson(shown);
        return kExitOk;
    }
    QJsonArray recipes;
    for (const Recipe &recipe : catalog->recipes())
        recipes.append(summaryOf(recipe));
    QJsonArray refused;
    for (const RecipeCatalog::Refusal &refusal : catalog->refusals())
        refused.append(QJsonObject{{QStringLiteral("file"), refusal.file},
                                   {QStringLiteral("code"), refusal.error.code}});
    printJson(
        QJsonObject{{QStringLiteral("recipes"), recipes}, {QStringLiteral("refused"), refused}});
    return kExitOk;
}

} // namespace veetbot
