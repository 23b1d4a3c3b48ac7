#pragma once

#include "domain/Result.h"
#include "domain/observation/BrowserObservation.h"

#include <QJsonObject>
#include <QLatin1String>
#include <QStringList>
#include <QUrl>

namespace veetbot {

// What a task run's model says the page will show when the owner's task is done, stated with
// veetbot_expect before the run's first act (docs/runs.md "Completion evidence"): a visible
// text, a region, the page's address (with its query), or a row of a table; and, optionally,
// texts that would show the task failed. The runner reads it on the observations after the
// last act: only a predicate seen there makes a run verified, because a page that merely
// changed proves nothing about the task.
//
// It is model text about page content: it is never logged, stored, put in an error or
// repeated to anyone but the model that wrote it.
struct CompletionPredicate
{
    static constexpr int kMaxTextUnits = 256;
    static constexpr int kMaxUrlUnits = 2048;
    static constexpr int kMaxCells = 8;
    static constexpr int kMaxFailureTexts = 4;

    enum class Kind
    {
        Text,   // {kind: text, text}: the page's visible text contains it
        Region, // {kind: region, name, region_kind?}: a region with exactly that name
        Url,    // {kind: url, url}: the same address; every query parameter given present
        Row     // {kind: row, cells}: one line of a table holds these cells, in this order
    };
    // What one observation shows of it. A failure text outweighs the predicate on one page.
    enum class Reading
    {
        NotSeen,
        Satisfied,
        FailureSeen
    };

    Kind kind = Kind::Text;
    QString text;
    QString regionKind; // empty: any kind
    QString name;
    QUrl url;
    QStringList cells;
    QStringList failureTexts;

    // Strict: exactly the fields of the kind, plus failure_texts (0-4); texts of 1-256 UTF-16
    // units once white space is collapsed; an absolute HTTPS URL without credentials or a
    // fragment; 1-8 cells. Anything else is ToolArguments::invalidArguments().
    static Result<CompletionPredicate> fromJson(const QJsonObject &arguments);
    Reading read(const BrowserObservation &observation) const;

    // The function a task run offers for it: name, description, parameters.
    static QJsonObject function();

    friend bool operator==(const CompletionPredicate &, const CompletionPredicate &) = default;
};

namespace CompletionTool {
inline constexpr QLatin1String kName("veetbot_expect");
} // namespace CompletionTool

} // namespace veetbot
