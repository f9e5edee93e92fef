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
    const nlohmann::json& schema() const { return root_; }

    // "path: message" lines, for test output.
    static std::string describe(const std::vector<SchemaError>& errors);

  private:
    void check_schema(const nlohmann::json& s, const std::string& where, int depth);
    void validate_node(const nlohmann::json& s, const nlohmann::json& value,
                       const std::string& path, std::vector<SchemaError>& errors, int depth) const;
    const nlohmann::json& resolve(const std::string& ref, const std::string& where) const;

    nlohmann::json root_;
    std::map<std::string, std::regex> patterns_;
};

}  // namespace gpuadvise_test
