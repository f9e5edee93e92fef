#pragma once
// A small JSON Schema (draft 2020-12) validator for the subset that
// docs/schema/*.schema.json uses, so the tests need no schema library:
//
//   type (a name or a list of names), const, enum, required, properties,
//   additionalProperties (true, false or a schema), items (one schema for
//   every element), minItems, minimum, minLength, pattern, oneOf, anyOf,
//   $ref to a local JSON pointer ("#/$defs/name"), boolean schemas, and the
//   annotations $schema, $id, $comment, $defs, title, description, examples
//   and default.
//
// The constructor rejects any other keyword, a malformed keyword value and a
// $ref that does not resolve, so a schema never relies on a check that is
// silently skipped.
//
// One deliberate difference from the draft: "integer" means a value written
// as an integer literal (5, not 5.0 or 5e0), since docs/json.md promises
// integers for byte counts. "number" accepts both.
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

namespace gpuadvise_test {

struct SchemaError {
    std::string path;     // JSON pointer into the instance, "" for the root
    std::string message;  // what is wrong there
};

class JsonSchemaValidator {
  public:
    // Throws std::invalid_argument naming the schema location of the problem.
    explicit JsonSchemaValidator(nlohmann::json schema);

    // Every violation found; empty when the instance is valid.
    std::vector<SchemaError> validate(const nlohmann::json& instance) const;
    bool is_valid(const nlohmann::json& instance) const { return validate(instance).empty(); }

    // The root schema, for tests that inspect it.
    const nlohmann::json& schema() const { return *root_; }

    // "path: message" lines, for test output.
    static std::string describe(const std::vector<SchemaError>& errors);

  private:
    // Where a value sits in the instance, as a chain of parents that becomes a
    // JSON pointer only when an error is reported: the schema tests validate
    // megabytes of output, and building a path string per value was most of
    // the time.
    struct Path {
        const Path* parent = nullptr;
        const std::string* key = nullptr;  // an object member, or
        std::size_t index = 0;             // an array element when key is null
        bool root = true;
        std::string str() const;
    };

    // An object schema's keywords, found once when the schema is checked
    // rather than looked up by name at every value validated.
    struct Keywords {
        const nlohmann::json* ref = nullptr;  // the resolved target of $ref
        const nlohmann::json* type = nullptr;
        const nlohmann::json* constant = nullptr;
        const nlohmann::json* enumeration = nullptr;
        const nlohmann::json* minimum = nullptr;
        const nlohmann::json* min_length = nullptr;
        const nlohmann::json* pattern = nullptr;
        const std::regex* pattern_re = nullptr;
        const nlohmann::json* min_items = nullptr;
        const nlohmann::json* max_items = nullptr;
        const nlohmann::json* items = nullptr;
        const nlohmann::json* required = nullptr;
        const nlohmann::json* properties = nullptr;
        const nlohmann::json* additional = nullptr;
        const nlohmann::json* one_of = nullptr;
        const nlohmann::json* any_of = nullptr;
    };

    void check_schema(const nlohmann::json& s, const std::string& where, int depth);
    void validate_node(const nlohmann::json& s, const nlohmann::json& value, const Path& path,
                       std::vector<SchemaError>& errors, int depth) const;
    const nlohmann::json& resolve(const std::string& ref, const std::string& where) const;

    // On the heap, so the resolved references below stay valid when the
    // validator moves.
    std::shared_ptr<const nlohmann::json> root_;
    std::map<std::string, std::regex> patterns_;
    std::map<const nlohmann::json*, Keywords> keywords_;  // of every object schema
};

}  // namespace gpuadvise_test
