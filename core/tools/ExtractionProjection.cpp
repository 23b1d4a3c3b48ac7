#include "ExtractionProjection.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace veetbot::ExtractionProjection {

namespace {
QByteArray compact(const QJsonValue &value)
{
    // QJsonDocument holds only objects and arrays: a scalar is written inside an array.
    if (value.isObject())
        return QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
    if (value.isArray())
        return QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2);
}

QByteArray member(const char *key, const QByteArray &value)
{
    return '"' + QByteArray(key) + "\":" + value;
}
} // namespace

QByteArray member(const Extraction &extraction, int rows)
{
    const QJsonObject canonical = extraction.toJson();
    const QJsonArray canonicalRows = canonical.value(QLatin1String("rows")).toArray();
    rows = qBound(0, rows, int(canonicalRows.size()));
    QByteArray out = R"("extraction":{)";
    out += member("kind", compact(canonical.value(QLatin1String("kind")))) + ',';
    out += member("index", compact(canonical.value(QLatin1String("index")))) + ',';
    out += member("found", compact(canonical.value(QLatin1String("found")))) + ',';
    out += member("columns", compact(canonical.value(QLatin1String("columns")))) + ',';
    out += R"("rows":[)";
    for (int i = 0; i < rows; ++i) {
        if (i > 0)
            out += ',';
        out += compact(canonicalRows.at(i));
    }
    out += "],";
    if (canonicalRows.size() > rows)
        out += member("omitted_rows", QByteArray::number(canonicalRows.size() - rows)) + ',';
    out += member("coverage", compact(canonical.value(QLatin1String("coverage"))));
    out += '}';
    return out;
}

QByteArray omittedMember()
{
    return QByteArrayLiteral(R"("extraction":{"omitted":"whole_extraction","reason":"budget"})");
}

Fit fit(const Extraction &extraction, const std::function<bool(const QByteArray &)> &fits)
{
    // At most 50 rows: a downward scan is cheap and finds the longest fitting prefix.
    for (int rows = int(extraction.rows.size()); rows >= 0; --rows) {
        QByteArray candidate = member(extraction, rows);
        if (fits(candidate))
            return Fit{std::move(candidate), rows, false};
    }
    return Fit{omittedMember(), 0, true};
}

} // namespace veetbot::ExtractionProjection
