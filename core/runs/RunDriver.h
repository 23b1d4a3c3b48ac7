#pragma once

#include "domain/run/TaskRun.h"

#include <QObject>
#include <QString>

namespace veetbot {

class ToolPipeline;

// What `veetbot run` drives (docs/runs.md): the model loop (TaskRunner) or a reviewed recipe
// (RecipeRunner). Both make every browser call through the session's ToolPipeline, so a
// recipe's call meets the same validation, policy, approvals, grants, write guard, effect
// ledger, timeline and cancellation as a model's; the composition cannot tell them apart but
// by the run's record.
class RunDriver : public QObject
{
    Q_OBJECT
public:
    // What the completion evidence says of a run whose acts succeeded (the outcome's reason):
    // closed words, never page text.
    enum class Evidence
    {
        None,                // no act succeeded, or one is uncertain: the outcome says it all
        NoPredicate,         // no completion predicate was stated
        PredicateSeen,       // seen after the last act: verified
        PredicateNotSeen,    // not seen after the last act
        PredicateBeforeActs, // the page showed it before any act: no evidence of the acts
        FailureSeen          // a failure text was seen after the last act
    };
    static QString evidenceString(Evidence evidence);

    struct Result
    {
        RunStatus status = RunStatus::Failed;
        RunOutcome outcome = RunOutcome::None;
        Evidence evidence = Evidence::None;
        QString stopCode;
        QString answer; // the final text (may quote website content)
        RunUsage usage;
        int uncertainActs = 0;
    };

    using QObject::QObject;

    virtual void start() = 0;
    // The owner stops the run: it ends cancelled, truthfully.
    virtual void cancel() = 0;
    // What the run has used so far, and its outcome as the evidence stands.
    virtual const RunUsage &usage() const = 0;
    virtual RunOutcome currentOutcome() const = 0;

    // The sign-in wait (a driver that never waits ends needs_user at a wall instead).
    virtual bool waitingForSignIn() const { return false; }
    virtual void resumeAfterSignIn(ToolPipeline &) {}
    virtual void stopWaitingForSignIn() {}

Q_SIGNALS:
    // Emitted once, from the event loop.
    void finished(const veetbot::RunDriver::Result &result);
    // The run now waits for the owner's sign-in: no call is in flight, and the pipeline (and
    // its provider) may be released. Emitted from the event loop.
    void signInNeeded();
};

} // namespace veetbot
