#pragma once

#include "domain/Result.h"
#include "domain/observation/BrowserObservation.h"

#include <QByteArray>

namespace veetbot {

// The model projection: turns a canonical, already validated observation into the exact bytes the
// model receives, as compact JSON inside the EXTERNAL_UNTRUSTED envelope, never longer than the
// byte budget.
//
// It keeps the exact revision and whole element records in canonical order, cuts the title
// and names only to their display limits (with an explicit flag), counts what it left out,
// and continues only after the last control it actually exposed. It never shortens a
// revision, never emits half a record or a continuation that skips a control the model did
// not see; when not even the revision and coverage fit it says so as a whole-observation
// omission with nothing actionable. Pure and deterministic: the same observation and budget
// give the same bytes. It never changes the canonical observation.
class ModelProjection
{
public:
    // Configuration, not a limit of the function: callers pass their inline output budget.
    static constexpr int kDefaultBudgetBytes = 16 * 1024;
    // Smaller budgets are raised to this; the whole-observation omission always fits in it.
    static constexpr int kMinBudgetBytes = 256;
    // Display limits, UTF-8 bytes including the ellipsis.
    static constexpr int kTitleLimitBytes = 128;
    static constexpr int kNameLimitBytes = 256;
    static constexpr int kSummaryLimitBytes = 256; // region summaries

    // What one projection exposed, for callers that persist or account for it.
    struct Projection
    {
        QByteArray bytes; // what the model receives
        bool wholeObservationOmitted = false;
        int exposedElements = 0;       // a prefix of the canonical elements
        int exposedRegions = 0;        // a prefix of the canonical regions
        bool expansionBlocked = false; // the first control cannot fit
        bool urlOmitted = false;
        bool titleOmitted = false;
        qint64 omittedTextBytes = 0;    // UTF-8 bytes of canonical text not shown
        int exposedRows = 0;            // extraction mode: a prefix of the canonical rows
        bool extractionOmitted = false; // extraction mode: the whole extraction left out
    };

    static Projection build(const BrowserObservation &observation,
                            int budgetBytes = kDefaultBudgetBytes);
    // The bytes alone. A whole-observation omission is a valid, explicit answer here.
    static QByteArray project(const BrowserObservation &observation,
                              int budgetBytes = kDefaultBudgetBytes);
    // tool.browser.output_invalid instead of a whole-observation omission (when the metadata
    // or a single complete reference cannot fit), or for a budget below the minimum.
    static Result<QByteArray> projectOrFail(const BrowserObservation &observation,
                                            int budgetBytes = kDefaultBudgetBytes);

    // The longest prefix of `text` whose UTF-8 form, plus the ellipsis, is at most
    // `limitBytes`, followed by "…"; `text` itself when it already fits. Never splits a UTF-8
    // sequence or a surrogate pair.
    static QString truncateForDisplay(const QString &text, int limitBytes, bool *truncated);

private:
    static Projection buildView(const BrowserObservation &observation, int budgetBytes,
                                bool showDraft);
};

} // namespace veetbot
