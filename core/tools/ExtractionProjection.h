#pragma once

#include "domain/observation/Extraction.h"

#include <QByteArray>

#include <functional>

namespace veetbot {

// The model view of an extraction, for ModelProjection: in extraction mode the requested rows come
// right after the revision, before controls, location, title and prose. A smaller budget keeps a
// prefix of whole canonical rows and counts the rest (`omitted_rows`); when not even the
// extraction's metadata fits, the whole extraction is omitted explicitly. A row is never cut: each
// exposed row is byte-for-byte the canonical one.
namespace ExtractionProjection {

// `"extraction":{...}` with the first `rows` canonical rows (0..rows.size()).
QByteArray member(const Extraction &extraction, int rows);
// `"extraction":{"omitted":"whole_extraction","reason":"budget"}`.
QByteArray omittedMember();

struct Fit
{
    QByteArray member;
    int rows = 0;         // exposed rows, a prefix of the canonical rows
    bool omitted = false; // the whole extraction was left out
};
// The member with the most rows for which `fits(member)` holds, else the omission marker.
// `fits` must be monotonic in the member's size.
Fit fit(const Extraction &extraction, const std::function<bool(const QByteArray &)> &fits);

} // namespace ExtractionProjection
} // namespace veetbot
