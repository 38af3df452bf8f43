'use strict';
// What differs between two protobuf messages, field by field: the paths and both values, as
// clients/python/fielddiff.py names them ("events[0].huaniao.played.cards[0].id: record 3,
// sent 4"). The walk follows the message's descriptor (protobufjs reflection), so every field
// a viewer is shown is compared: a oneof's other member, a repeated field's extra entries,
// an unset optional field; bytes that differ in no known field are named as the encoding.

const ABSENT = 'absent';
const MAX_VALUE = 200; // characters of a value shown (a whole message on one line, cut)

const cut = (text) => {
  const chars = [...text];
  return chars.length <= MAX_VALUE ? text : `${chars.slice(0, MAX_VALUE - 1).join('')}…`;
};

/** Whether `field` tells set from unset (a message, a oneof member, a proto3 optional). */
const hasPresence = (field) => Boolean(field.resolvedType && !field.resolvedType.values) || Boolean(field.partOf) ||
  Boolean(field.options && field.options.proto3_optional);

const isMessage = (field) => Boolean(field.resolvedType && !field.resolvedType.values);
const present = (msg, field) => Object.prototype.hasOwnProperty.call(msg, field.name) && msg[field.name] !== null && msg[field.name] !== undefined;

/** A message on one line, close to Python's text_format (as_one_line, as_utf8): fields by number. */
function textFormat(type, msg) {
  const parts = [];
  for (const field of type.fieldsArray.slice().sort((a, b) => a.id - b.id)) {
    field.resolve();
    const v = msg[field.name];
    const items = field.repeated ? v || [] : hasPresence(field) ? (present(msg, field) ? [v] : []) : isDefault(v) ? [] : [v];
    for (const item of items) {
      parts.push(isMessage(field) ? `${field.name} { ${textFormat(field.resolvedType, item)} }`.replace('{  }', '{ }')
        : `${field.name}: ${scalarText(field, item, true)}`);
    }
  }
  return parts.join(' ');
}

const isDefault = (v) => v === undefined || v === null || v === 0 || v === '' || v === false ||
  (v && typeof v === 'object' && typeof v.isZero === 'function' && v.isZero()) ||
  (v instanceof Uint8Array && !v.length) || (Array.isArray(v) && !v.length);

function scalarText(field, v, inMessage = false) {
  const type = field.resolvedType;
  if (type && type.values) return type.valuesById[v] !== undefined ? type.valuesById[v] : String(v);
  if (v instanceof Uint8Array) {
    if (inMessage) return JSON.stringify(Buffer.from(v).toString('latin1'));
    return Buffer.from(v).toString('hex') || '""';
  }
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return String(v);
}

/** One value on one side, as the proof shows it (ABSENT if unset). */
function value(field, v) {
  if (v === null || v === undefined) return ABSENT;
  if (isMessage(field)) return cut(`{${textFormat(field.resolvedType, v)}}`);
  return cut(scalarText(field, v));
}

function one(field, path, a, b) {
  if (isMessage(field) && a !== null && a !== undefined && b !== null && b !== undefined) {
    return fieldDiffs(field.resolvedType, a, b, path);
  }
  const x = value(field, a);
  const y = value(field, b);
  return x === y ? [] : [{ path, record: x, sent: y }];
}

/** Every field path where `sent` differs from `record` (decoded messages of `type`). */
function fieldDiffs(type, record, sent, path = '') {
  const out = [];
  for (const field of type.fieldsArray) { // in declaration order, as Python's DESCRIPTOR.fields
    field.resolve();
    const name = path ? `${path}.${field.name}` : field.name;
    if (field.repeated) {
      const a = record[field.name] || [];
      const b = sent[field.name] || [];
      for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
        out.push(...one(field, `${name}[${i}]`, i < a.length ? a[i] : null, i < b.length ? b[i] : null));
      }
    } else if (hasPresence(field)) {
      const x = present(record, field);
      const y = present(sent, field);
      if (x || y) out.push(...one(field, name, x ? record[field.name] : null, y ? sent[field.name] : null));
    } else {
      out.push(...one(field, name, record[field.name], sent[field.name]));
    }
  }
  return out;
}

/** `fieldDiffs`, or, for bytes that differ in no known field, the encoding itself. */
function payloadDiffs(type, recordBytes, sentBytes) {
  const found = fieldDiffs(type, type.decode(recordBytes), type.decode(sentBytes));
  if (found.length || Buffer.compare(Buffer.from(recordBytes), Buffer.from(sentBytes)) === 0) return found;
  return [{
    path: '(encoding)',
    record: `${recordBytes.length} bytes`,
    sent: `${sentBytes.length} bytes (the same known fields: unknown fields or another encoding)`,
  }];
}

const differLine = (d) => `${d.path}: record ${d.record}, sent ${d.sent}`;

module.exports = { fieldDiffs, payloadDiffs, differLine, ABSENT };
