#pragma once

#include "Recipe.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace veetbot {

class TestOverrides;

// The recipes a user's runs may use (docs/recipes.md): the shipped ones, compiled into the
// program as Qt resources (:/veetbot/recipes/*.yaml, from resources/recipes), and the owner's
// private ones, *.yaml files of mode 0600 in a private directory (mode 0700, this user's;
// $XDG_CONFIG_HOME/veetbot/recipes by default), read without following a symbolic link.
//
// A YAML document is read with yaml-cpp into a tree of objects, arrays and strings (every
// scalar as its text; the recipe's schema types it), within fixed bounds: 64 KiB, depth 7,
// 2,048 nodes (an alias counted wherever it is reached), scalars of at most 1,024 UTF-16 units.
// Tags, anchors on keys, duplicate keys, a key that is not a scalar, more than one document and
// NUL bytes are refused. Nothing of the text is ever put in an error.
class RecipeCatalog
{
public:
    static constexpr qint64 kMaxDocumentBytes = 64 * 1024;
    static constexpr int kMaxDepth = 7;
    static constexpr int kMaxNodes = 2048;
    static constexpr int kMaxScalarUnits = 1024;
    static constexpr int kMaxPrivateRecipes = 64;

    // One recipe file that could not be used, and why (a recipe.* code).
    struct Refusal
    {
        QString file; // the file's name, never its content
        Error error;
    };

    // The YAML text as the JSON tree validatedRecipe() reads (recipe.too_large, recipe.invalid).
    static Result<QJsonObject> readDocument(const QByteArray &yaml);
    static Result<Recipe> parse(const QByteArray &yaml, Recipe::Source source,
                                const TestOverrides &overrides);

    // The shipped recipes (a shipped recipe that does not validate is a build defect: the
    // tests read every one).
    static RecipeCatalog shipped(const TestOverrides &overrides);
    // The shipped recipes and the owner's private ones from `directory` (empty: the default
    // directory). A missing directory is no error; a directory that is not private is
    // recipe.directory_not_private and no private recipe is read; a file that is not private,
    // not valid, or takes an id already taken is refused alone, with its own code.
    static Result<RecipeCatalog> load(const TestOverrides &overrides,
                                      const QString &directory = QString());
    static QString defaultDirectory();

    const QList<Recipe> &recipes() const { return m_recipes; }
    const QList<Refusal> &refusals() const { return m_refusals; }
    std::optional<Recipe> find(const QString &id) const;
    // The one recipe whose intent phrase is the owner's whole request (normalizedIntent) on
    // `origin`; none when no recipe, or more than one, matches.
    std::optional<Recipe> select(const QString &request, const Origin &origin,
                                 const TestOverrides &overrides) const;

private:
    QList<Recipe> m_recipes;
    QList<Refusal> m_refusals;
};

} // namespace veetbot
