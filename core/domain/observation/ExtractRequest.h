#pragma once

#include "domain/Result.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace veetbot {

// browser.observe's {extract} mode: read the index-th visible table, list or form of the current
// revision into typed rows.
struct ExtractColumn
{
    enum class Type
    {
        String,
        Integer,
        Number,
        Boolean
    };
    static constexpr int kMaxNameUnits = 64;

    QString name; // 1-64 UTF-16 units, unique within the request
    Type type = Type::String;
    bool required = false;

    friend bool operator==(const ExtractColumn &, const ExtractColumn &) = default;
};

QString extractColumnTypeString(ExtractColumn::Type type);

struct ExtractRequest
{
    enum class Kind
    {
        Table,
        List,
        Form
    };
    static constexpr int kMaxRevisionUnits = 128;
    static constexpr int kMaxIndex = 15;
    static constexpr int kMinColumns = 1;
    static constexpr int kMaxColumns = 8;
    static constexpr int kMinLimit = 1;
    static constexpr int kMaxLimit = 50;

    QString revision; // must be the current revision, else tool.browser.page_changed
    Kind kind = Kind::Table;
    int index = 0; // 0-15, among visible collections of the kind, in document order
    QList<ExtractColumn> columns;
    int limit = 1; // 1-50 rows

    // Strict: {revision, kind, index, columns: [{name, type, required?}], limit}; anything
    // else is ToolArguments::invalidArguments().
    static Result<ExtractRequest> fromJson(const QJsonValue &json);
    // Writes every field (required always); fromJson(toJson()) gives the same request.
    QJsonObject toJson() const;

    friend bool operator==(const ExtractRequest &, const ExtractRequest &) = default;
};

QString extractKindString(ExtractRequest::Kind kind);

} // namespace veetbot
