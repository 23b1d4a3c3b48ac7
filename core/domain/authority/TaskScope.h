#pragma once

#include "domain/Result.h"
#include "domain/web/Origin.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>
#include <QStringView>
#include <QUrl>
#include <QUuid>

#include <compare>
#include <optional>

namespace veetbot {

class TestOverrides;

// Stable failures of the owner's task-scope list. The codes are wire strings
// ("scope.invalid", ...); the messages are fixed and never name a scope, URL, tenant or
// principal.
enum class TaskScopeFailure
{
    Invalid,   // scope.invalid: not an exact public HTTPS origin with one path segment
    Sensitive, // scope.sensitive: the segment names a sensitive area
    Limit,     // scope.limit: more than sixteen entries
    Duplicate, // scope.duplicate: an entry is already in the list
    NotFound,  // scope.not_found: the entry to remove is not in the list
    Conflict,  // scope.conflict: the list changed since its revision was read
};

QString taskScopeFailureString(TaskScopeFailure failure);
QString taskScopeFailureMessage(TaskScopeFailure failure);
Error taskScopeError(TaskScopeFailure failure);
bool isTaskScopeFailure(const Error &error, TaskScopeFailure failure);

// True when a decoded path segment is sensitive as isSensitivePathSegment (the shared
// consequence classifier) reads it: it names a consequence or an administrative,
// authentication, pricing or messaging area.
bool isSensitiveScopeSegment(QStringView segment);

// One entry of the owner's task-scope list: an exact public HTTPS origin and exactly one
// path segment, such as https://www.acme-school.com/lesson. A task grant can only ever be offered
// for a page under one of these. The segment is held percent-decoded and compared exactly:
// paths are case-sensitive, so /Lesson and /lesson are different entries and neither
// contains the other's pages. It never holds a '/', a dot segment or anything but letters,
// digits, marks and "-._~".
class TaskScope
{
public:
    static constexpr int kMaxSegmentLength = 64;
    static constexpr int kMaxTextLength = 512;

    // Owner input: "https://host/segment" with an optional trailing "/". Refused as
    // scope.invalid: anything Origin refuses (http, IP literals, userinfo, ...), a port other
    // than 443 (except on a test host named by overrides), no segment, an empty or second
    // segment, a query or fragment (even empty), a dot segment, an encoded '/', '\' or '%',
    // a segment over 64 characters. scope.sensitive when the segment is sensitive.
    static Result<TaskScope> parse(const QString &text, const TestOverrides &overrides);
    // The same structural rules without the sensitive vocabulary: for naming an entry that is
    // already in the list (to remove it), which may have been saved before the vocabulary
    // grew. Never for an entry to be added.
    static Result<TaskScope> parseExisting(const QString &text, const TestOverrides &overrides);
    // A stored entry: its origin text and decoded segment, held to every structural rule of
    // parse() (not the sensitive vocabulary, which may grow after an entry was saved; the
    // list rules check that on every change). scope.invalid otherwise.
    static Result<TaskScope> fromParts(const QString &origin, const QString &segment,
                                       const TestOverrides &overrides);

    const Origin &origin() const { return m_origin; }
    // Decoded, e.g. "lesson" or "café".
    const QString &segment() const { return m_segment; }
    // The canonical form: the origin, "/" and the segment percent-encoded (UTF-8) except for
    // unreserved characters, e.g. "https://www.acme-school.com/caf%C3%A9".
    QString toString() const;
    bool isSensitive() const { return isSensitiveScopeSegment(m_segment); }

    // Whether a page URL lies inside this scope: it is on exactly this origin, its path's
    // first segment decodes to exactly this segment (so the path is /segment or starts with
    // /segment/), and no segment of its path decodes to "." or "..". Query and fragment do
    // not matter. Says nothing about the rest of the path: callers still refuse pages with a
    // sensitive segment deeper down.
    bool contains(const QUrl &url, const TestOverrides &overrides) const;

    friend bool operator==(const TaskScope &, const TaskScope &) = default;
    // Canonical order: origin (host, port), then segment; QString has no operator<=> in
    // Qt 6.4, naming the category synthesizes it from < and ==.
    friend std::strong_ordering operator<=>(const TaskScope &, const TaskScope &) = default;

private:
    TaskScope(Origin origin, QString segment)
        : m_origin(std::move(origin)), m_segment(std::move(segment))
    {
    }

    Origin m_origin;
    QString m_segment;
};

// Who made a change to the list: the owner (a client edit) or the one-time bootstrap seed.
enum class TaskScopeSource
{
    Owner,
    Seed,
};

// "owner", "seed".
QString taskScopeSourceString(TaskScopeSource source);
std::optional<TaskScopeSource> taskScopeSourceFromString(const QString &text);

// The persisted list of one tenant and principal. Revision 0 means never saved; every
// change advances it by one, so a saved empty list (revision >= 1) is told apart from none.
struct TaskScopePolicy
{
    static constexpr int kMaxEntries = 16;

    // Canonical order, unique, at most sixteen.
    QList<TaskScope> entries;
    qint64 revision = 0;

    bool isSaved() const { return revision > 0; }
    // The first entry that contains url, if any.
    std::optional<TaskScope> scopeFor(const QUrl &url, const TestOverrides &overrides) const;

    // Sorts into canonical order; scope.duplicate when an entry repeats, scope.limit above
    // sixteen.
    static Result<QList<TaskScope>> normalize(QList<TaskScope> entries);
    // The 64 lower-case hex digits of SHA-256 over the canonical entries, one per line: the
    // same list always has the same digest, whatever order it was given in.
    static QString digest(const QList<TaskScope> &entries);

    friend bool operator==(const TaskScopePolicy &, const TaskScopePolicy &) = default;
};

// What a repository stores for the list besides the entries: who made the last change, so
// only a replay of an owner's own edit is recognised as one.
struct TaskScopeState
{
    TaskScopePolicy policy;
    TaskScopeSource lastSource = TaskScopeSource::Owner;
};

// The outcome of an edit, as the pure rules decide it and a repository applies it.
struct TaskScopeChange
{
    enum class Kind
    {
        Changed,   // store policy, end grants outside it, append one audit record
        Replayed,  // the immediately preceding owner edit again: answer it, store nothing
        Unchanged, // nothing to store (the same list at the current revision, or a seed
                   // for a list that was saved before)
    };

    Kind kind = Kind::Unchanged;
    TaskScopePolicy policy;
    TaskScopeSource source = TaskScopeSource::Owner;
    // Entries of the previous list that the new one no longer has.
    QList<TaskScope> removed;
};

// The audit kind of a change to the list.
inline constexpr char16_t kTaskScopesUpdatedKind[] = u"browser.task_scopes.updated";

// One appended record of a change: the list as the change left it, each entry in its
// canonical form (TaskScope::toString()). Scope entries are owner configuration, not page
// content, so they are kept whole; they are kept as text because a record is history, read
// back even after the rules for new entries have changed.
struct TaskScopeAuditRecord
{
    QUuid id;
    QString tenant;
    QString principal;
    QString kind;
    QDateTime at;
    qint64 revision = 0;
    TaskScopeSource source = TaskScopeSource::Owner;
    QStringList entries;

    // The record of a Changed edit of scope's list at time, with a fresh random id.
    static TaskScopeAuditRecord of(const QString &tenant, const QString &principal,
                                   const TaskScopeChange &change, const QDateTime &time);

    friend bool operator==(const TaskScopeAuditRecord &, const TaskScopeAuditRecord &) = default;
};

// The list's edit rules as pure functions over the stored state.
namespace TaskScopeRules {

// An owner's replacement list, given the revision it was read at. The entries are
// normalized and each is checked against the sensitive vocabulary (scope.sensitive). At the
// current revision: Changed with the next revision, or Unchanged for the same saved list. A
// list never saved is always Changed, even when empty, so the seed never applies after it.
// One revision behind with exactly the list the owner's last change saved: Replayed. Any
// other revision: scope.conflict. A negative revision is scope.invalid.
Result<TaskScopeChange> replace(const TaskScopeState &current, qint64 expectedRevision,
                                const QList<TaskScope> &entries);
// The one-time bootstrap seed: Changed (revision 1, source seed) only when no list was ever
// saved, else Unchanged. Its entries obey the same rules as an edit.
Result<TaskScopeChange> seed(const TaskScopeState &current, const QList<TaskScope> &entries);

} // namespace TaskScopeRules

} // namespace veetbot
