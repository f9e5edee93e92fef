#include "json_schema_validator.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <utility>

namespace gpuadvise_test {
namespace {

using nlohmann::json;

// $ref chains and nested schemas deeper than this are a cycle, not a schema.
constexpr int kMaxDepth = 256;

const std::set<std::string>& supported_keywords() {
    static const std::set<std::string> k{
        // assertions and applicators
        "type", "const", "enum", "required", "properties", "additionalProperties", "items",
        "minItems", "maxItems", "minimum", "minLength", "pattern", "oneOf", "anyOf", "$ref",
        // annotations and structure
        "$schema", "$id", "$comment", "$defs", "title", "description", "examples", "default"};
    return k;
}

bool is_type_name(const std::string& t) {
    return t == "null" || t == "boolean" || t == "integer" || t == "number" || t == "string" ||
           t == "array" || t == "object";
}

bool has_type(const json& v, const std::string& t) {
    if (t == "null") return v.is_null();
    if (t == "boolean") return v.is_boolean();
    if (t == "integer")
        return v.is_number_integer();  // an integer literal; 5.0 is not one (see the header)
    if (t == "number") return v.is_number();
    if (t == "string") return v.is_string();
    if (t == "array") return v.is_array();
    if (t == "object") return v.is_object();
    return false;
}

std::string type_of(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "boolean";
    if (v.is_number_integer()) return "integer";
    if (v.is_number()) return "number";
    if (v.is_string()) return "string";
    if (v.is_array()) return "array";
    return "object";
}

std::string short_dump(const json& v) {
    std::string text = v.dump();
    if (text.size() > 80) text = text.substr(0, 77) + "...";
    return text;
}

// RFC 6901 escaping of one reference token.
std::string pointer_token(const std::string& key) {
    std::string out;
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

std::string child_path(const std::string& path, const std::string& key) {
    return path + "/" + pointer_token(key);
}
std::string child_path(const std::string& path, std::size_t index) {
    return path + "/" + std::to_string(index);
}

// Unicode code points of a UTF-8 string (JSON Schema counts characters, not bytes).
std::size_t code_points(const std::string& s) {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
    return n;
}

// value < limit, exact for integers of either sign and any size.
bool less_than(const json& value, const json& limit) {
    if (value.is_number_integer() && limit.is_number_integer()) {
        const bool value_negative = !value.is_number_unsigned() && value.get<std::int64_t>() < 0;
        const bool limit_negative = !limit.is_number_unsigned() && limit.get<std::int64_t>() < 0;
        if (value_negative != limit_negative) return value_negative;
        if (value_negative) return value.get<std::int64_t>() < limit.get<std::int64_t>();
        return value.get<std::uint64_t>() < limit.get<std::uint64_t>();
    }
    return value.get<double>() < limit.get<double>();
}

bool is_non_negative_integer(const json& v) {
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

[[noreturn]] void bad_schema(const std::string& where, const std::string& what) {
    throw std::invalid_argument("schema " + (where.empty() ? std::string("#") : "#" + where) +
                                ": " + what);
}

}  // namespace

JsonSchemaValidator::JsonSchemaValidator(json schema)
    : root_(std::make_shared<const json>(std::move(schema))) {
    check_schema(*root_, "", 0);
}

std::string JsonSchemaValidator::Path::str() const {
    if (root) return "";
    const std::string up = parent != nullptr ? parent->str() : "";
    return key != nullptr ? child_path(up, *key) : child_path(up, index);
}

const json& JsonSchemaValidator::resolve(const std::string& ref, const std::string& where) const {
    if (ref.empty() || ref[0] != '#')
        bad_schema(where, "$ref '" + ref + "' is not a local reference (#/...)");
    try {
        const json::json_pointer pointer(ref.substr(1));
        if (!root_->contains(pointer)) bad_schema(where, "$ref '" + ref + "' does not resolve");
        return root_->at(pointer);
    } catch (const json::exception& e) {
        bad_schema(where, "$ref '" + ref + "' is not a JSON pointer (" + e.what() + ")");
    }
}

void JsonSchemaValidator::check_schema(const json& s, const std::string& where, int depth) {
    if (depth > kMaxDepth) bad_schema(where, "nested too deeply");
    if (s.is_boolean()) return;
    if (!s.is_object())
        bad_schema(where, "a schema must be an object or a boolean, not " + type_of(s));
    Keywords& k = keywords_[&s];
    const std::map<std::string, const json**> slots{{"type", &k.type},
                                                    {"const", &k.constant},
                                                    {"enum", &k.enumeration},
                                                    {"minimum", &k.minimum},
                                                    {"minLength", &k.min_length},
                                                    {"pattern", &k.pattern},
                                                    {"minItems", &k.min_items},
                                                    {"maxItems", &k.max_items},
                                                    {"items", &k.items},
                                                    {"required", &k.required},
                                                    {"properties", &k.properties},
                                                    {"additionalProperties", &k.additional},
                                                    {"oneOf", &k.one_of},
                                                    {"anyOf", &k.any_of}};
    for (const auto& [key, value] : s.items()) {
        if (const auto slot = slots.find(key); slot != slots.end()) *slot->second = &value;
        const std::string at = child_path(where, key);
        if (!supported_keywords().count(key))
            bad_schema(at, "keyword '" + key + "' is not supported by this validator");
        if (key == "type") {
            const json names = value.is_array() ? value : json::array({value});
            if (names.empty()) bad_schema(at, "needs at least one type");
            for (const auto& name : names)
                if (!name.is_string() || !is_type_name(name.get<std::string>()))
                    bad_schema(at, "unknown type " + short_dump(name));
        } else if (key == "enum" || key == "oneOf" || key == "anyOf") {
            if (!value.is_array() || value.empty()) bad_schema(at, "must be a non-empty array");
            if (key != "enum")
                for (std::size_t i = 0; i < value.size(); ++i)
                    check_schema(value[i], child_path(at, i), depth + 1);
        } else if (key == "required") {
            if (!value.is_array()) bad_schema(at, "must be an array of property names");
            for (const auto& name : value)
                if (!name.is_string()) bad_schema(at, "must be an array of property names");
        } else if (key == "properties" || key == "$defs") {
            if (!value.is_object()) bad_schema(at, "must be an object of schemas");
            for (const auto& [name, sub] : value.items())
                check_schema(sub, child_path(at, name), depth + 1);
        } else if (key == "additionalProperties" || key == "items") {
            check_schema(value, at, depth + 1);
        } else if (key == "minItems" || key == "maxItems" || key == "minLength") {
            if (!is_non_negative_integer(value)) bad_schema(at, "must be a non-negative integer");
        } else if (key == "minimum") {
            if (!value.is_number()) bad_schema(at, "must be a number");
        } else if (key == "pattern") {
            if (!value.is_string()) bad_schema(at, "must be a string");
            try {
                k.pattern_re =
                    &patterns_
                         .emplace(value.get<std::string>(),
                                  std::regex(value.get<std::string>(), std::regex::ECMAScript))
                         .first->second;
            } catch (const std::regex_error& e) {
                bad_schema(at, "is not a valid regular expression (" + std::string(e.what()) + ")");
            }
        } else if (key == "$ref") {
            if (!value.is_string()) bad_schema(at, "must be a string");
            k.ref = &resolve(value.get<std::string>(), at);
        } else if (key == "$schema" || key == "$id" || key == "$comment" || key == "title" ||
                   key == "description") {
            if (!value.is_string()) bad_schema(at, "must be a string");
        }
        // const, examples, default: any value.
    }
}

std::vector<SchemaError> JsonSchemaValidator::validate(const json& instance) const {
    std::vector<SchemaError> errors;
    validate_node(*root_, instance, Path{}, errors, 0);
    return errors;
}

void JsonSchemaValidator::validate_node(const json& s, const json& value, const Path& at_path,
                                        std::vector<SchemaError>& errors, int depth) const {
    const auto fail = [&](std::string message) {
        errors.push_back({at_path.str(), std::move(message)});
    };
    if (depth > kMaxDepth) {
        fail("schema nested too deeply (a $ref cycle?)");
        return;
    }
    if (s.is_boolean()) {
        if (!s.get<bool>()) fail("no value is allowed here");
        return;
    }
    const Keywords& k = keywords_.at(&s);
    if (k.ref != nullptr) validate_node(*k.ref, value, at_path, errors, depth + 1);

    if (const json* type = k.type) {
        const auto matches = [&](const json& name) {
            return has_type(value, name.get_ref<const std::string&>());
        };
        const bool ok =
            type->is_array() ? std::any_of(type->begin(), type->end(), matches) : matches(*type);
        if (!ok) {
            std::string expected;
            for (const auto& name : type->is_array() ? *type : json::array({*type}))
                expected += (expected.empty() ? "" : " or ") + name.get<std::string>();
            fail("expected " + expected + ", got " + type_of(value) + " " + short_dump(value));
        }
    }
    if (k.constant != nullptr && value != *k.constant)
        fail("expected " + short_dump(*k.constant) + ", got " + short_dump(value));
    if (const json* e = k.enumeration) {
        if (std::none_of(e->begin(), e->end(),
                         [&](const json& allowed) { return value == allowed; }))
            fail(short_dump(value) + " is not one of " + short_dump(*e));
    }

    if (value.is_number() && k.minimum != nullptr && less_than(value, *k.minimum))
        fail(short_dump(value) + " is below the minimum " + short_dump(*k.minimum));
    if (value.is_string()) {
        const auto& text = value.get_ref<const std::string&>();
        if (k.min_length != nullptr && code_points(text) < k.min_length->get<std::size_t>())
            fail("string is shorter than " + short_dump(*k.min_length) + " characters");
        if (k.pattern_re != nullptr && !std::regex_search(text, *k.pattern_re))
            fail(short_dump(value) + " does not match the pattern " + short_dump(*k.pattern));
    }
    if (value.is_array()) {
        if (k.min_items != nullptr && value.size() < k.min_items->get<std::size_t>())
            fail("array has " + std::to_string(value.size()) + " items, fewer than " +
                 short_dump(*k.min_items));
        if (k.max_items != nullptr && value.size() > k.max_items->get<std::size_t>())
            fail("array has " + std::to_string(value.size()) + " items, more than " +
                 short_dump(*k.max_items));
        if (k.items != nullptr)
            for (std::size_t i = 0; i < value.size(); ++i)
                validate_node(*k.items, value[i], Path{&at_path, nullptr, i, false}, errors,
                              depth + 1);
    }
    if (value.is_object()) {
        if (k.required != nullptr)
            for (const auto& name : *k.required)
                if (!value.contains(name.get_ref<const std::string&>()))
                    fail("required property '" + name.get<std::string>() + "' is missing");
        for (auto member = value.begin(); member != value.end(); ++member) {
            const std::string& key = member.key();
            const Path at{&at_path, &key, 0, false};
            const auto known =
                k.properties != nullptr ? k.properties->find(key) : json::const_iterator{};
            if (k.properties != nullptr && known != k.properties->end()) {
                validate_node(*known, *member, at, errors, depth + 1);
            } else if (const json* extra = k.additional) {
                if (extra->is_boolean() && !extra->get<bool>())
                    fail("property '" + key + "' is not allowed");
                else
                    validate_node(*extra, *member, at, errors, depth + 1);
            }
        }
    }

    for (const auto& [keyword, branches] :
         {std::pair{"oneOf", k.one_of}, std::pair{"anyOf", k.any_of}}) {
        if (branches == nullptr) continue;
        const bool one_of = branches == k.one_of;
        std::vector<std::vector<SchemaError>> branch_errors;
        std::vector<std::size_t> matched;
        for (std::size_t i = 0; i < branches->size(); ++i) {
            std::vector<SchemaError> e;
            validate_node((*branches)[i], value, at_path, e, depth + 1);
            if (e.empty()) matched.push_back(i);
            branch_errors.push_back(std::move(e));
            if (!one_of && !matched.empty()) break;  // anyOf holds once one branch does
        }
        if (matched.empty()) {
            std::size_t closest = 0;
            for (std::size_t i = 1; i < branch_errors.size(); ++i)
                if (branch_errors[i].size() < branch_errors[closest].size()) closest = i;
            fail("matches none of the " + std::to_string(branches->size()) + " " + keyword +
                 " schemas; the closest, #" + std::to_string(closest) + ", fails with:");
            for (auto& e : branch_errors[closest]) errors.push_back({e.path, "  " + e.message});
        } else if (one_of && matched.size() > 1) {
            fail("matches oneOf schemas #" + std::to_string(matched[0]) + " and #" +
                 std::to_string(matched[1]) + "; exactly one must match");
        }
    }
}

std::string JsonSchemaValidator::describe(const std::vector<SchemaError>& errors) {
    std::string out;
    for (const auto& e : errors)
        out += (e.path.empty() ? std::string("(root)") : e.path) + ": " + e.message + "\n";
    return out;
}

}  // namespace gpuadvise_test
