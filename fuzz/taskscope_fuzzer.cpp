// libFuzzer target for the owner's task scopes: the seed list (VEETBOT_TASK_SCOPES), each of
// whose entries is read by TaskScope::parse, and page containment.
// Besides never crashing: every accepted list is canonical (sorted, unique, at most sixteen);
// every entry is nonsensitive, on port 443, with a valid one-segment path; its canonical text
// parses back to the same entry, and from its parts too; and it contains its own URL and the
// URL one segment deeper, never the bare origin.

#include "domain/authority/TaskScope.h"
#include "domain/web/TestOverrides.h"
#include "profiles/TaskScopeSeed.h"

#include <QUrl>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

using namespace veetbot;

namespace {

void require(bool condition)
{
    if (!condition)
        std::abort();
}

void checkEntry(const TaskScope &entry)
{
    const TestOverrides none;
    require(!entry.isSensitive());
    require(entry.origin().port() == 443);
    require(!entry.segment().isEmpty() && entry.segment().size() <= TaskScope::kMaxSegmentLength);
    require(!entry.segment().contains(u'/') && !entry.segment().contains(u'%'));
    const QString text = entry.toString();
    const Result<TaskScope> again = TaskScope::parse(text, none);
    require(again.ok() && *again == entry && again->toString() == text);
    const Result<TaskScope> stored =
        TaskScope::fromParts(entry.origin().toString(), entry.segment(), none);
    require(stored.ok() && *stored == entry);
    require(entry.contains(QUrl(text, QUrl::StrictMode), none));
    require(entry.contains(QUrl(text + QStringLiteral("/next"), QUrl::StrictMode), none));
    require(!entry.contains(QUrl(entry.origin().toString() + u'/', QUrl::StrictMode), none));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(size));
    const TestOverrides none;
    const Result<std::optional<QList<TaskScope>>> seeded = TaskScopeSeed::parse(text, none);
    if (seeded && *seeded) {
        const QList<TaskScope> &entries = **seeded;
        require(entries.size() <= TaskScopePolicy::kMaxEntries);
        require(std::is_sorted(entries.cbegin(), entries.cend()));
        require(std::adjacent_find(entries.cbegin(), entries.cend()) == entries.cend());
        for (const TaskScope &entry : entries)
            checkEntry(entry);
    }
    if (const Result<TaskScope> entry = TaskScope::parse(text, none); entry)
        checkEntry(*entry);
    // Any page URL at all: containment never crashes, and a refused entry contains nothing.
    const Result<TaskScope> lesson =
        TaskScope::parse(QStringLiteral("https://www.acme-school.com/lesson"), none);
    require(lesson.ok());
    (void)lesson->contains(QUrl(text, QUrl::StrictMode), none); // only must not crash
    return 0;
}
