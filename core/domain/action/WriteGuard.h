#pragma once

#include <QByteArray>
#include <QString>
#include <QUrl>

#include <optional>

namespace veetbot {

// The write guard (docs/authority.md#the-write-guard, ADR 0013): while an act that no fresh
// approval or task grant stands behind runs (ordinary interaction, a standing grant), the
// browser refuses at its request stage every request that can write. Words decide which card
// the owner sees; this decides what can leave. Pure: the browser applies it to each request it
// sees, with the body where its engine shows one.
namespace WriteGuard {

// What kind of request the browser is about to send.
enum class RequestKind
{
    Document,    // a main-frame or frame document (a link, a form, location.href, ...)
    PageRequest, // fetch, XMLHttpRequest, EventSource
    Beacon,      // navigator.sendBeacon, <a ping>, a CSP report: nobody reads the response
    Script,      // a script or style sheet
    Other        // an image, a font, media, ...
};

enum class Verdict
{
    Read,   // may be sent
    Write,  // refused; the act ends tool.browser.write_requires_approval
    Dropped // refused quietly: a beacon is never the act's effect, so the act goes on
};

// Why a request was judged a write (for tests and audits; never shown with the URL).
enum class WriteReason
{
    None,
    Method,         // not GET or HEAD, and no body shows it is a read
    TokenParameter, // a query parameter named like a token, nonce or signature
    TokenValue,     // a query value of 16 or more characters that looks random
    OperationValue, // an operation parameter (action=, op=, do=, ...) naming no read
    MethodOverride, // _method= (or X-HTTP-Method-Override in the query) naming a write
    WriteEndpoint,  // a document or page request whose last path segment names a write
    SignOutPath     // any request with a path segment that reads as signing out
};
QString writeReasonString(WriteReason reason);

struct Request
{
    QByteArray method; // upper case, as the engine reports it
    RequestKind kind = RequestKind::Other;
    QUrl url;
    // The request body when the engine shows it (the Chromium placement does; Qt WebEngine
    // 6.4 does not), and its content type. Used only to recognise a GraphQL query.
    std::optional<QByteArray> body;
    QByteArray contentType;
};

struct Judgement
{
    Verdict verdict = Verdict::Read;
    WriteReason reason = WriteReason::None;
};

// The rule. A beacon is Dropped. A method other than GET or HEAD is a Write unless it is a
// page request whose body is shown and is a GraphQL query (graphQlIsQuery); then its URL is
// judged as a GET's. A GET or HEAD is a Write when any path segment reads as signing out; for
// a document or page request, when its last path segment names a write (/delete, /rollback,
// /save: pathSegmentConsequence); and when its query carries a token-shaped or
// operation-shaped parameter (queryWriteReason). Sensitive areas (/admin, /settings) are the
// document fence's (DispatchConstraint::allowsDocument), not this rule's.
Judgement judge(const Request &request);

// The query half of the rule, shared with the URLs the owner and the model see: the first
// reason a query parameter makes a GET a write, else None.
WriteReason queryWriteReason(const QUrl &url);

// Whether a query parameter's name reads as a token (token, csrf, xsrf, nonce,
// authenticity_token, _wpnonce, sig, signature, hmac, secret, ...).
bool isTokenParameterName(QStringView name);
// Whether a value looks like a secret: at least 16 letters and digits, no white space, and
// hex with letters and digits, or both cases with digits, or both cases with a quarter or more
// upper case (hex digests, base64 and random tokens; not words, CamelCase titles, slugs, dates,
// numbers or UUIDs).
bool isTokenShapedValue(QStringView value);
// Whether a parameter names an identifier (id, postId, user_ids, uuid, slug, sku): its value
// is not judged by its shape (an item's id is read every day), only its name is.
bool isIdentifierParameterName(QStringView name);
// Whether a parameter places a page in a list (cursor, after, page, pageToken, continue, ...):
// such parameters are skipped, their values being opaque reads.
bool isPaginationParameterName(QStringView name);
// Whether a parameter names an operation (action, op, operation, do, cmd, command, task, mode,
// method, func, function) and the operation values that only read (view, edit, history, ...).
bool isOperationParameterName(QStringView name);
bool isReadOperation(QStringView value);

// Whether a request body holds only GraphQL queries: JSON ({"query": "query ..."} or
// "{ ... }", or a batch of such objects) or an application/graphql document, whose top-level
// definitions are all queries or fragments. A persisted query carries no text to read and is
// not one; neither is a body over 64 KiB, malformed JSON, or any other content type.
bool graphQlIsQuery(const QByteArray &body, const QByteArray &contentType);

} // namespace WriteGuard

} // namespace veetbot
