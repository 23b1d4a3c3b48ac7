#pragma once

#include "Recipe.h"
#include "RunDriver.h"
#include "domain/run/Activity.h"
#include "tools/ToolPipeline.h"

#include <QTimer>

#include <functional>
#include <optional>

namespace veetbot {

class EffectLedger;

// A reviewed recipe's run (docs/recipes.md): its steps, in order, each as a browser tool call
// through the session's ToolPipeline. Nothing here decides authority: an act that needs a card
// asks one, a refusal stops the recipe with the refusal's code.
//
//  - An act reads the page afresh and needs exactly one control of its role and exact name
//    (recipe.target_not_found, recipe.target_ambiguous: nothing is sent).
//  - An extract reads the page as last seen (again after a fresh look when it changed); a
//    collection extracts each page and clicks its one "next" control, until there is none or
//    its page bound; a click that stays on the same address is recipe.postcondition_unmet.
//  - A control postcondition goes with the act (the ledger records observed_complete when it
//    holds); when it does not, and for a completion postcondition, the page is read again,
//    kPostconditionReads times kPostconditionReadIntervalMs apart. Never seen:
//    recipe.postcondition_unmet, and nothing more is sent.
//  - An act refused before anything was sent (its revision went stale, or the write guard
//    stopped a write it did not know of) is tried once more on a fresh read; after the guard,
//    that try asks a card.
//  - An act whose outcome is unknown is never sent again. The recipe reads the page (the one
//    it is on, else the act's page again) and stops: recipe.uncertain_act_verified when the
//    postcondition shows, recipe.outcome_unverified when it does not.
//  - A page off the recipe's origin (recipe.left_origin), the calls bound (recipe.calls), the
//    deadline (recipe.deadline) and cancellation stop it; a sign-in wall ends it needs_user.
// It never logs or puts in an error page text; the answer (stdout) is the recipe's report,
// which may quote the extracted rows.
class RecipeRunner : public RunDriver
{
    Q_OBJECT
public:
    static constexpr int kPostconditionReads = 8;
    static constexpr int kPostconditionReadIntervalMs = 250;

    struct Options
    {
        Recipe recipe;
        Origin origin;                  // the profile's origin the recipe serves (Recipe::serves)
        EffectLedger *ledger = nullptr; // to read an act's state after cancellation
        std::function<void(const RunUsage &, RunOutcome)> progress;
        std::function<void(const RunUsage &, const QString &phase)> status;
    };

    RecipeRunner(ToolPipeline &pipeline, Options options, QObject *parent = nullptr);

    void start() override;
    void cancel() override;
    const RunUsage &usage() const override { return m_usage; }
    RunOutcome currentOutcome() const override { return outcome(); }

    // The stop codes (docs/recipes.md).
    static QString stopCode(const char *name) { return QStringLiteral("recipe.") + name; }

private:
    using Done = std::function<void(ToolPipeline::Outcome)>;
    // One tool call within the bound; false when the bound stopped the recipe.
    bool call(const QString &tool, const QJsonObject &arguments, Done done, bool act = false);
    // A navigate or observe whose failure (or sign-in wall) stops the recipe and whose page
    // must be on the recipe's origin; `then` hears the page.
    void page(const QString &tool, const QJsonObject &arguments,
              std::function<void(const BrowserObservation &)> then);
    // The refs of the page's controls of the target's role and exact name.
    static QStringList refsOf(const BrowserObservation &page, const RecipeTarget &target);
    void nextStep();
    void navigate(const RecipeStep &step);
    void observe();
    // The step's rows on the page as last seen (`fresh`: after a fresh look), then `then`.
    void extract(const RecipeStep &step, bool fresh, std::function<void()> then);
    // A collection: the rows of page `page`, then the next page, until the step's bound.
    void collect(const RecipeStep &step, int page);
    void nextPage(const RecipeStep &step, int page, int attempt);
    void act(const RecipeStep &step, int attempt);
    void sendAct(const RecipeStep &step, const BrowserObservation &page, int attempt);
    void onActed(const RecipeStep &step, int attempt, ToolPipeline::Outcome outcome);
    // Reads the page for the act's postcondition, `readsLeft` more times.
    void readPostcondition(const RecipeStep &step, int readsLeft);
    // The read-only reconciliation after an act whose outcome is unknown.
    void reconcile(const RecipeStep &step, const QUrl &actPage);
    bool postconditionHolds(const RecipeStep &step, const BrowserObservation &page) const;
    // Whether the page is on the recipe's origin; stops the recipe when it is not.
    bool onOrigin(const BrowserObservation &page);
    // A tool failure that stops the recipe: the sign-in wall ends it needs_user.
    void stopOn(const ToolPipeline::Outcome &outcome);
    void stepDone();
    // Stops the run (cancellation, the deadline): an act in flight is uncertain unless the
    // ledger says it was never sent.
    void stop(RunStatus status, const QString &code);
    void finish(RunStatus status, const QString &stopCode);
    RunOutcome outcome() const;
    void saveProgress();
    void setPhase(const QString &phase);

    ToolPipeline &m_pipeline;
    Options m_options;
    RunUsage m_usage;
    QTimer m_deadline;
    int m_step = -1;
    quint64 m_inflightCall = 0;
    bool m_inflightAct = false;
    QUuid m_effectBefore;
    bool m_started = false;
    bool m_done = false;
    int m_actsTried = 0;
    int m_actsVerified = 0;
    int m_uncertain = 0;
    int m_observations = 0;
    QUrl m_lastPage;
    QString m_lastRevision; // of the last page seen
    QStringList m_report;   // the answer's lines
};

} // namespace veetbot
