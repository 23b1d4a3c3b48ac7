#pragma once

#include "CompletionPredicate.h"
#include "domain/Result.h"
#include "domain/action/ActRequest.h"
#include "domain/observation/ExtractRequest.h"
#include "domain/observation/VisiblePredicate.h"
#include "domain/web/Origin.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace veetbot {

class TestOverrides;

// A reviewed workflow recipe, format 1 (docs/recipes.md, decision 0022): a fixed sequence of
// browser tool calls on one exact origin that runs, without a model, when the owner's whole
// request is one of its intent phrases. Every step goes through the same tool pipeline as a
// model's call (validation, policy, approvals, grants, the write guard, the effect ledger); the
// recipe only decides which call comes next.
//
// A value of this type is valid by construction: validatedRecipe() is the only way to make one
// from text, and it refuses everything outside the format with a stable recipe.* code and a
// fixed message that never repeats the input.
struct RecipeTarget
{
    QString role; // exact role, 1-64 UTF-16 units
    QString name; // exact accessible name, 1-1,024 UTF-16 units

    friend bool operator==(const RecipeTarget &, const RecipeTarget &) = default;
};

struct RecipeStep
{
    enum class Kind
    {
        Navigate, // {navigate: PATH}: the recipe's origin with a literal path (and query)
        Observe,  // {observe: {}}: a fresh look at the page
        Act,      // {act: {kind, target, <field of the kind>, postcondition}}
        Extract,  // {extract: {kind, index, columns, limit}}: typed rows of the current page
        // {collect: {kind, index, columns, limit, next: {role, name}, pages}}: the extract on
        // each page, following the one control `next` names, until no such control is left or
        // `pages` pages were read (2-10): a finite collection.
        Collect
    };

    Kind kind = Kind::Navigate;
    // Navigate: "/path" or "/path?query", literal (no template, no "..", no "//", no
    // fragment, no percent sign, no back slash); it is appended to the recipe's origin.
    QString path;
    // Act: the kind and its one field, as browser.act takes them; the target is resolved on a
    // fresh observation to exactly one control of this role and exact name (Collect: the
    // control to the next page).
    ActRequest::Kind act = ActRequest::Kind::Click;
    RecipeTarget target;
    QString text;         // type: the text; select: the option
    bool checked = false; // check
    ActRequest::Key key = ActRequest::Key::Enter;
    int delta = 0; // scroll
    // Every act has exactly one positive postcondition: a control's state (given to the act
    // itself, so the ledger records it as observed_complete) or what the page shows when the
    // recipe's work is done.
    std::optional<VisiblePredicate> control;
    std::optional<CompletionPredicate> completion;
    // Act: the act on `ref` of `revision`, with the control postcondition when there is one.
    Result<ActRequest> actOn(const QString &revision, const QString &ref) const;

    // Extract, Collect: everything of browser.observe's extract mode but the revision (the
    // runner's).
    ExtractRequest extract;
    int pages = 0; // Collect

    friend bool operator==(const RecipeStep &, const RecipeStep &) = default;
};

struct Recipe
{
    static constexpr int kFormat = 1;
    static constexpr int kMaxSteps = 16;
    static constexpr int kMaxIntents = 8;
    static constexpr int kMaxIntentUnits = 256;
    static constexpr int kMaxTitleUnits = 128;
    static constexpr int kMaxIdUnits = 64;
    static constexpr int kMaxPathUnits = 512;
    static constexpr int kMaxDeadlineSeconds = 900;
    static constexpr int kDefaultDeadlineSeconds = 300;
    // Tool calls a run of the recipe may make: each step one, an act two (its fresh look and
    // the act), the postcondition's reads and an uncertain act's reconciliation included.
    static constexpr int kMaxCalls = 64;
    static constexpr int kMaxCollectPages = 10;

    enum class Source
    {
        Shipped, // compiled into the program, reviewed with it
        Private  // the owner's own file
    };

    QString id; // [a-z0-9] words joined by "-" or ".", 3-64 units
    int version = 1;
    QString origin; // exactly one HTTPS origin, as Origin::toString() writes it
    QString title;
    QStringList intents; // as written; matched in their normalized form
    int deadlineSeconds = kDefaultDeadlineSeconds;
    QList<RecipeStep> steps;
    Source source = Source::Shipped;

    // The calls the steps take at most before any postcondition read: an act counts two, a
    // collection of N pages 3N - 2.
    int plannedCalls() const;
    // "demo-shop.orders@1": what a run's record names as its model.
    QString reference() const;
    // Whether a profile of `origin` may run it: the same origin; a test's host
    // (VEETBOT_TEST_RESOLVE) on any port, as its fixture server listens where it can.
    bool serves(const Origin &origin, const TestOverrides &overrides) const;
    // The address a navigate step goes to on the origin the recipe serves.
    static QUrl urlOf(const RecipeStep &step, const Origin &origin);
    // The recipe as JSON (the form `veetbot recipes show --json` prints); reading it back as
    // a YAML document gives the same recipe.
    QJsonObject toJson() const;

    friend bool operator==(const Recipe &, const Recipe &) = default;
};

// The stable error codes (docs/recipes.md): recipe.invalid (any violation of the format; the
// message names the rule, never the text), recipe.too_large, recipe.not_found,
// recipe.duplicate_id, recipe.directory_not_private, recipe.file_not_private.
Error recipeError(const QString &code);

// Checks a recipe document already read into JSON (objects, arrays and strings only: every
// scalar of the YAML as its text) against format 1 and makes the recipe. Origins are parsed
// with `overrides` (a test's hosts resolve; otherwise special-use names are refused).
Result<Recipe> validatedRecipe(const QJsonObject &document, Recipe::Source source,
                               const TestOverrides &overrides);

// The owner's request in the form intents are matched in: case folded, white space collapsed
// and trimmed, one trailing "." "!" or "?" dropped.
QString normalizedIntent(const QString &text);

} // namespace veetbot
