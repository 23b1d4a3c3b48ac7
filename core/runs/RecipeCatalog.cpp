#include "RecipeCatalog.h"

#include "domain/web/TestOverrides.h"
#include "storage/FileDescriptor.h"
#include "storage/PrivateDirectory.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QStandardPaths>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {

Error invalid(const char *rule)
{
    return Error{QStringLiteral("recipe.invalid"), QString::fromLatin1(rule)};
}

// The first reading of the stream, by events: how many documents it holds, and whether a key
// carries an anchor or is an alias (a key is a name of the schema, never a reference). It
// builds nothing. yaml-cpp 0.7 answers some malformed streams (a lone ",") with an endless
// run of empty documents, so the caller asks for two at most: YAML::LoadAll would never end.
class StreamShape : public YAML::EventHandler
{
public:
    bool keyIsReference() const { return m_keyIsReference; }

    void OnDocumentStart(const YAML::Mark &) override { m_open.clear(); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark &, YAML::anchor_t anchor) override { child(anchor, false); }
    void OnAlias(const YAML::Mark &, YAML::anchor_t) override { child(YAML::NullAnchor, true); }
    void OnScalar(const YAML::Mark &, const std::string &, YAML::anchor_t anchor,
                  const std::string &) override
    {
        child(anchor, false);
    }
    void OnSequenceStart(const YAML::Mark &, const std::string &, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override
    {
        child(anchor, false);
        m_open.push_back(Container{false, 0});
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark &, const std::string &, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override
    {
        child(anchor, false);
        m_open.push_back(Container{true, 0});
    }
    void OnMapEnd() override { close(); }

private:
    struct Container
    {
        bool isMap = false;
        qint64 children = 0; // a map's keys are its even children
    };

    void child(YAML::anchor_t anchor, bool alias)
    {
        if (m_open.empty())
            return;
        Container &parent = m_open.back();
        if (parent.isMap && parent.children % 2 == 0 && (alias || anchor != YAML::NullAnchor))
            m_keyIsReference = true;
        ++parent.children;
    }
    void close()
    {
        if (!m_open.empty())
            m_open.pop_back();
    }

    std::vector<Container> m_open;
    bool m_keyIsReference = false;
};

// The second reading: the document's node tree into objects, arrays and strings. An alias is
// the node it names, reached again: every arrival counts, so a document of nested aliases
// meets the node bound long before it is expanded.
class TreeReader
{
public:
    Result<QJsonValue> read(const YAML::Node &node, int depth)
    {
        if (++m_nodes > RecipeCatalog::kMaxNodes)
            return invalid("A recipe document has at most 2,048 nodes, aliases counted where "
                           "they are used.");
        if (node.IsNull() || !node.IsDefined())
            return invalid("A recipe document holds no empty (null) value.");
        // Untagged nodes read "?" (plain) or "!" (quoted, or the non-specific tag); any other
        // tag would ask for a type the schema does not give.
        const std::string &tag = node.Tag();
        if (tag != "?" && tag != "!")
            return invalid("A recipe document carries no tags.");
        if (node.IsScalar()) {
            const QString text = QString::fromStdString(node.Scalar());
            if (text.size() > RecipeCatalog::kMaxScalarUnits)
                return invalid("A recipe document's values are at most 1,024 UTF-16 units.");
            return QJsonValue(text);
        }
        if (depth > RecipeCatalog::kMaxDepth)
            return invalid("A recipe document nests maps and lists at most 7 deep.");
        if (node.IsSequence()) {
            QJsonArray array;
            for (const YAML::Node &item : node) {
                Result<QJsonValue> value = read(item, depth + 1);
                if (!value)
                    return value.error();
                array.append(*value);
            }
            return QJsonValue(array);
        }
        if (node.IsMap()) {
            QJsonObject object;
            for (const auto &pair : node) {
                if (!pair.first.IsScalar())
                    return invalid("A recipe document's keys are plain text.");
                Result<QJsonValue> key = read(pair.first, depth + 1);
                if (!key)
                    return key.error();
                if (object.contains(key->toString()))
                    return invalid("A recipe document repeats no key within a map.");
                Result<QJsonValue> value = read(pair.second, depth + 1);
                if (!value)
                    return value.error();
                object.insert(key->toString(), *value);
            }
            return QJsonValue(object);
        }
        return invalid("A recipe document holds maps, lists and text only.");
    }

private:
    int m_nodes = 0;
};

Result<QJsonObject> readTree(const std::string &text)
{
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    StreamShape shape;
    int documents = 0;
    while (documents < 2 && parser.HandleNextDocument(shape))
        ++documents;
    if (documents != 1)
        return invalid("A recipe file holds exactly one YAML document.");
    if (shape.keyIsReference())
        return invalid("A recipe document's keys carry no anchor and are no alias.");
    const YAML::Node root = YAML::Load(text);
    if (!root.IsMap())
        return invalid("A recipe document is a map.");
    TreeReader reader;
    Result<QJsonValue> tree = reader.read(root, 1);
    if (!tree)
        return tree.error();
    return tree->toObject();
}

// A private recipe file, opened relative to the private directory without following a
// symbolic link and without blocking on anything that is not a regular file.
Result<QByteArray> readPrivateFile(int directoryFd, const QByteArray &name)
{
    FileDescriptor fd(
        ::openat(directoryFd, name.constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    struct stat status = {};
    if (!fd.isValid() || ::fstat(fd.get(), &status) != 0 || !S_ISREG(status.st_mode) ||
        !PrivateDirectory::isOwnerOnly(status))
        return recipeError(QStringLiteral("recipe.file_not_private"));
    QByteArray bytes;
    char buffer[8192];
    while (bytes.size() <= RecipeCatalog::kMaxDocumentBytes) {
        const ssize_t count = ::read(fd.get(), buffer, sizeof buffer);
        if (count < 0 && errno == EINTR)
            continue;
        if (count < 0)
            return recipeError(QStringLiteral("recipe.file_not_private"));
        if (count == 0)
            break;
        bytes.append(buffer, qsizetype(count));
    }
    if (bytes.size() > RecipeCatalog::kMaxDocumentBytes)
        return recipeError(QStringLiteral("recipe.too_large"));
    return bytes;
}

} // namespace

Result<QJsonObject> RecipeCatalog::readDocument(const QByteArray &yaml)
{
    if (yaml.size() > kMaxDocumentBytes)
        return recipeError(QStringLiteral("recipe.too_large"));
    if (yaml.contains('\0'))
        return invalid("A recipe file holds no NUL byte.");
    // yaml-cpp reports malformed text by exceptions; they stop here, and their messages (which
    // quote the text) go nowhere.
    try {
        return readTree(yaml.toStdString());
    } catch (const YAML::Exception &) {
        return invalid("A recipe file is well-formed YAML.");
    } catch (const std::exception &) {
        return invalid("A recipe file is well-formed YAML.");
    }
}

Result<Recipe> RecipeCatalog::parse(const QByteArray &yaml, Recipe::Source source,
                                    const TestOverrides &overrides)
{
    const Result<QJsonObject> document = readDocument(yaml);
    if (!document)
        return document.error();
    return validatedRecipe(*document, source, overrides);
}

RecipeCatalog RecipeCatalog::shipped(const TestOverrides &overrides)
{
    RecipeCatalog catalog;
    const QDir directory(QStringLiteral(":/veetbot/recipes"));
    for (const QString &name :
         directory.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name)) {
        QFile file(directory.filePath(name));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        // A shipped recipe that does not validate here is left out: its tests read every one
        // with the overrides it needs (the demo's recipes serve a test host, which an empty
        // set of overrides refuses), so this is a program that is not theirs to run.
        Result<Recipe> recipe =
            parse(file.read(kMaxDocumentBytes + 1), Recipe::Source::Shipped, overrides);
        if (recipe && !catalog.find(recipe->id))
            catalog.m_recipes << std::move(recipe).value();
    }
    return catalog;
}

Result<RecipeCatalog> RecipeCatalog::load(const TestOverrides &overrides, const QString &directory)
{
    RecipeCatalog catalog = shipped(overrides);
    const QString path = directory.isEmpty() ? defaultDirectory() : directory;
    PrivateDirectory privateDirectory = PrivateDirectory::open(path);
    if (!privateDirectory.isOpen()) {
        if (privateDirectory.failure() == PrivateDirectory::Failure::Missing)
            return catalog;
        return recipeError(QStringLiteral("recipe.directory_not_private"));
    }
    const std::optional<QList<QByteArray>> entries =
        PrivateDirectory::entryNames(privateDirectory.fd());
    if (!entries)
        return recipeError(QStringLiteral("recipe.directory_not_private"));
    QList<QByteArray> names;
    for (const QByteArray &name : *entries) {
        if (name.endsWith(".yaml"))
            names << name;
    }
    std::sort(names.begin(), names.end());
    for (qsizetype i = 0; i < names.size(); ++i) {
        const QString fileName = QFile::decodeName(names.at(i));
        if (i >= kMaxPrivateRecipes) {
            catalog.m_refusals << Refusal{
                fileName, invalid("A private recipe directory is read for 64 recipes at most.")};
            continue;
        }
        const Result<QByteArray> bytes = readPrivateFile(privateDirectory.fd(), names.at(i));
        if (!bytes) {
            catalog.m_refusals << Refusal{fileName, bytes.error()};
            continue;
        }
        Result<Recipe> recipe = parse(*bytes, Recipe::Source::Private, overrides);
        if (!recipe) {
            catalog.m_refusals << Refusal{fileName, recipe.error()};
            continue;
        }
        if (catalog.find(recipe->id)) {
            catalog.m_refusals << Refusal{fileName,
                                          recipeError(QStringLiteral("recipe.duplicate_id"))};
            continue;
        }
        catalog.m_recipes << std::move(recipe).value();
    }
    return catalog;
}

QString RecipeCatalog::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
           QStringLiteral("/veetbot/recipes");
}

std::optional<Recipe> RecipeCatalog::find(const QString &id) const
{
    for (const Recipe &recipe : m_recipes) {
        if (recipe.id == id)
            return recipe;
    }
    return std::nullopt;
}

std::optional<Recipe> RecipeCatalog::select(const QString &request, const Origin &origin,
                                            const TestOverrides &overrides) const
{
    const QString wanted = normalizedIntent(request);
    if (wanted.isEmpty())
        return std::nullopt;
    std::optional<Recipe> chosen;
    for (const Recipe &recipe : m_recipes) {
        if (!recipe.serves(origin, overrides))
            continue;
        const bool matches =
            std::any_of(recipe.intents.cbegin(), recipe.intents.cend(),
                        [&](const QString &intent) { return normalizedIntent(intent) == wanted; });
        if (!matches)
            continue;
        // Two recipes for one request: neither is the owner's evident choice.
        if (chosen)
            return std::nullopt;
        chosen = recipe;
    }
    return chosen;
}

} // namespace veetbot
