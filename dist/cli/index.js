#!/usr/bin/env node
import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";
/******/ var __webpack_modules__ = ({

/***/ 181:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("buffer");

/***/ }),

/***/ 932:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("process");

/***/ }),

/***/ 7349:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);
var YAMLMap = __nccwpck_require__(4454);
var YAMLSeq = __nccwpck_require__(2223);
var resolveBlockMap = __nccwpck_require__(7103);
var resolveBlockSeq = __nccwpck_require__(334);
var resolveFlowCollection = __nccwpck_require__(3142);

function resolveCollection(CN, ctx, token, onError, tagName, tag) {
    const coll = token.type === 'block-map'
        ? resolveBlockMap.resolveBlockMap(CN, ctx, token, onError, tag)
        : token.type === 'block-seq'
            ? resolveBlockSeq.resolveBlockSeq(CN, ctx, token, onError, tag)
            : resolveFlowCollection.resolveFlowCollection(CN, ctx, token, onError, tag);
    const Coll = coll.constructor;
    // If we got a tagName matching the class, or the tag name is '!',
    // then use the tagName from the node class used to create it.
    if (tagName === '!' || tagName === Coll.tagName) {
        coll.tag = Coll.tagName;
        return coll;
    }
    if (tagName)
        coll.tag = tagName;
    return coll;
}
function composeCollection(CN, ctx, token, props, onError) {
    const tagToken = props.tag;
    const tagName = !tagToken
        ? null
        : ctx.directives.tagName(tagToken.source, msg => onError(tagToken, 'TAG_RESOLVE_FAILED', msg));
    if (token.type === 'block-seq') {
        const { anchor, newlineAfterProp: nl } = props;
        const lastProp = anchor && tagToken
            ? anchor.offset > tagToken.offset
                ? anchor
                : tagToken
            : (anchor ?? tagToken);
        if (lastProp && (!nl || nl.offset < lastProp.offset)) {
            const message = 'Missing newline after block sequence props';
            onError(lastProp, 'MISSING_CHAR', message);
        }
    }
    const expType = token.type === 'block-map'
        ? 'map'
        : token.type === 'block-seq'
            ? 'seq'
            : token.start.source === '{'
                ? 'map'
                : 'seq';
    // shortcut: check if it's a generic YAMLMap or YAMLSeq
    // before jumping into the custom tag logic.
    if (!tagToken ||
        !tagName ||
        tagName === '!' ||
        (tagName === YAMLMap.YAMLMap.tagName && expType === 'map') ||
        (tagName === YAMLSeq.YAMLSeq.tagName && expType === 'seq')) {
        return resolveCollection(CN, ctx, token, onError, tagName);
    }
    let tag = ctx.schema.tags.find(t => t.tag === tagName && t.collection === expType);
    if (!tag) {
        const kt = ctx.schema.knownTags[tagName];
        if (kt?.collection === expType) {
            ctx.schema.tags.push(Object.assign({}, kt, { default: false }));
            tag = kt;
        }
        else {
            if (kt) {
                onError(tagToken, 'BAD_COLLECTION_TYPE', `${kt.tag} used for ${expType} collection, but expects ${kt.collection ?? 'scalar'}`, true);
            }
            else {
                onError(tagToken, 'TAG_RESOLVE_FAILED', `Unresolved tag: ${tagName}`, true);
            }
            return resolveCollection(CN, ctx, token, onError, tagName);
        }
    }
    const coll = resolveCollection(CN, ctx, token, onError, tagName, tag);
    const res = tag.resolve?.(coll, msg => onError(tagToken, 'TAG_RESOLVE_FAILED', msg), ctx.options) ?? coll;
    const node = identity.isNode(res)
        ? res
        : new Scalar.Scalar(res);
    node.range = coll.range;
    node.tag = tagName;
    if (tag?.format)
        node.format = tag.format;
    return node;
}

exports.composeCollection = composeCollection;


/***/ }),

/***/ 3683:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Document = __nccwpck_require__(3021);
var composeNode = __nccwpck_require__(5937);
var resolveEnd = __nccwpck_require__(7788);
var resolveProps = __nccwpck_require__(4631);

function composeDoc(options, directives, { offset, start, value, end }, onError) {
    const opts = Object.assign({ _directives: directives }, options);
    const doc = new Document.Document(undefined, opts);
    const ctx = {
        atKey: false,
        atRoot: true,
        directives: doc.directives,
        options: doc.options,
        schema: doc.schema
    };
    const props = resolveProps.resolveProps(start, {
        indicator: 'doc-start',
        next: value ?? end?.[0],
        offset,
        onError,
        parentIndent: 0,
        startOnNewline: true
    });
    if (props.found) {
        doc.directives.docStart = true;
        if (value &&
            (value.type === 'block-map' || value.type === 'block-seq') &&
            !props.hasNewline)
            onError(props.end, 'MISSING_CHAR', 'Block collection cannot start on same line with directives-end marker');
    }
    // @ts-expect-error If Contents is set, let's trust the user
    doc.contents = value
        ? composeNode.composeNode(ctx, value, props, onError)
        : composeNode.composeEmptyNode(ctx, props.end, start, null, props, onError);
    const contentEnd = doc.contents.range[2];
    const re = resolveEnd.resolveEnd(end, contentEnd, false, onError);
    if (re.comment)
        doc.comment = re.comment;
    doc.range = [offset, contentEnd, re.offset];
    return doc;
}

exports.composeDoc = composeDoc;


/***/ }),

/***/ 5937:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Alias = __nccwpck_require__(4065);
var identity = __nccwpck_require__(1127);
var composeCollection = __nccwpck_require__(7349);
var composeScalar = __nccwpck_require__(5413);
var resolveEnd = __nccwpck_require__(7788);
var utilEmptyScalarPosition = __nccwpck_require__(2599);

const CN = { composeNode, composeEmptyNode };
function composeNode(ctx, token, props, onError) {
    const atKey = ctx.atKey;
    const { spaceBefore, comment, anchor, tag } = props;
    let node;
    let isSrcToken = true;
    switch (token.type) {
        case 'alias':
            node = composeAlias(ctx, token, onError);
            if (anchor || tag)
                onError(token, 'ALIAS_PROPS', 'An alias node must not specify any properties');
            break;
        case 'scalar':
        case 'single-quoted-scalar':
        case 'double-quoted-scalar':
        case 'block-scalar':
            node = composeScalar.composeScalar(ctx, token, tag, onError);
            if (anchor)
                node.anchor = anchor.source.substring(1);
            break;
        case 'block-map':
        case 'block-seq':
        case 'flow-collection':
            try {
                node = composeCollection.composeCollection(CN, ctx, token, props, onError);
                if (anchor)
                    node.anchor = anchor.source.substring(1);
            }
            catch (error) {
                // Almost certainly here due to a stack overflow
                const message = error instanceof Error ? error.message : String(error);
                onError(token, 'RESOURCE_EXHAUSTION', message);
            }
            break;
        default: {
            const message = token.type === 'error'
                ? token.message
                : `Unsupported token (type: ${token.type})`;
            onError(token, 'UNEXPECTED_TOKEN', message);
            isSrcToken = false;
        }
    }
    node ?? (node = composeEmptyNode(ctx, token.offset, undefined, null, props, onError));
    if (anchor && node.anchor === '')
        onError(anchor, 'BAD_ALIAS', 'Anchor cannot be an empty string');
    if (atKey &&
        ctx.options.stringKeys &&
        (!identity.isScalar(node) ||
            typeof node.value !== 'string' ||
            (node.tag && node.tag !== 'tag:yaml.org,2002:str'))) {
        const msg = 'With stringKeys, all keys must be strings';
        onError(tag ?? token, 'NON_STRING_KEY', msg);
    }
    if (spaceBefore)
        node.spaceBefore = true;
    if (comment) {
        if (token.type === 'scalar' && token.source === '')
            node.comment = comment;
        else
            node.commentBefore = comment;
    }
    // @ts-expect-error Type checking misses meaning of isSrcToken
    if (ctx.options.keepSourceTokens && isSrcToken)
        node.srcToken = token;
    return node;
}
function composeEmptyNode(ctx, offset, before, pos, { spaceBefore, comment, anchor, tag, end }, onError) {
    const token = {
        type: 'scalar',
        offset: utilEmptyScalarPosition.emptyScalarPosition(offset, before, pos),
        indent: -1,
        source: ''
    };
    const node = composeScalar.composeScalar(ctx, token, tag, onError);
    if (anchor) {
        node.anchor = anchor.source.substring(1);
        if (node.anchor === '')
            onError(anchor, 'BAD_ALIAS', 'Anchor cannot be an empty string');
    }
    if (spaceBefore)
        node.spaceBefore = true;
    if (comment) {
        node.comment = comment;
        node.range[2] = end;
    }
    return node;
}
function composeAlias({ options }, { offset, source, end }, onError) {
    const alias = new Alias.Alias(source.substring(1));
    if (alias.source === '')
        onError(offset, 'BAD_ALIAS', 'Alias cannot be an empty string');
    if (alias.source.endsWith(':'))
        onError(offset + source.length - 1, 'BAD_ALIAS', 'Alias ending in : is ambiguous', true);
    const valueEnd = offset + source.length;
    const re = resolveEnd.resolveEnd(end, valueEnd, options.strict, onError);
    alias.range = [offset, valueEnd, re.offset];
    if (re.comment)
        alias.comment = re.comment;
    return alias;
}

exports.composeEmptyNode = composeEmptyNode;
exports.composeNode = composeNode;


/***/ }),

/***/ 5413:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);
var resolveBlockScalar = __nccwpck_require__(8913);
var resolveFlowScalar = __nccwpck_require__(6842);

function composeScalar(ctx, token, tagToken, onError) {
    const { value, type, comment, range } = token.type === 'block-scalar'
        ? resolveBlockScalar.resolveBlockScalar(ctx, token, onError)
        : resolveFlowScalar.resolveFlowScalar(token, ctx.options.strict, onError);
    const tagName = tagToken
        ? ctx.directives.tagName(tagToken.source, msg => onError(tagToken, 'TAG_RESOLVE_FAILED', msg))
        : null;
    let tag;
    if (ctx.options.stringKeys && ctx.atKey) {
        tag = ctx.schema[identity.SCALAR];
    }
    else if (tagName)
        tag = findScalarTagByName(ctx.schema, value, tagName, tagToken, onError);
    else if (token.type === 'scalar')
        tag = findScalarTagByTest(ctx, value, token, onError);
    else
        tag = ctx.schema[identity.SCALAR];
    let scalar;
    try {
        const res = tag.resolve(value, msg => onError(tagToken ?? token, 'TAG_RESOLVE_FAILED', msg), ctx.options);
        scalar = identity.isScalar(res) ? res : new Scalar.Scalar(res);
    }
    catch (error) {
        const msg = error instanceof Error ? error.message : String(error);
        onError(tagToken ?? token, 'TAG_RESOLVE_FAILED', msg);
        scalar = new Scalar.Scalar(value);
    }
    scalar.range = range;
    scalar.source = value;
    if (type)
        scalar.type = type;
    if (tagName)
        scalar.tag = tagName;
    if (tag.format)
        scalar.format = tag.format;
    if (comment)
        scalar.comment = comment;
    return scalar;
}
function findScalarTagByName(schema, value, tagName, tagToken, onError) {
    if (tagName === '!')
        return schema[identity.SCALAR]; // non-specific tag
    const matchWithTest = [];
    for (const tag of schema.tags) {
        if (!tag.collection && tag.tag === tagName) {
            if (tag.default && tag.test)
                matchWithTest.push(tag);
            else
                return tag;
        }
    }
    for (const tag of matchWithTest)
        if (tag.test?.test(value))
            return tag;
    const kt = schema.knownTags[tagName];
    if (kt && !kt.collection) {
        // Ensure that the known tag is available for stringifying,
        // but does not get used by default.
        schema.tags.push(Object.assign({}, kt, { default: false, test: undefined }));
        return kt;
    }
    onError(tagToken, 'TAG_RESOLVE_FAILED', `Unresolved tag: ${tagName}`, tagName !== 'tag:yaml.org,2002:str');
    return schema[identity.SCALAR];
}
function findScalarTagByTest({ atKey, directives, schema }, value, token, onError) {
    const tag = schema.tags.find(tag => (tag.default === true || (atKey && tag.default === 'key')) &&
        tag.test?.test(value)) || schema[identity.SCALAR];
    if (schema.compat) {
        const compat = schema.compat.find(tag => tag.default && tag.test?.test(value)) ??
            schema[identity.SCALAR];
        if (tag.tag !== compat.tag) {
            const ts = directives.tagString(tag.tag);
            const cs = directives.tagString(compat.tag);
            const msg = `Value may be parsed as either ${ts} or ${cs}`;
            onError(token, 'TAG_RESOLVE_FAILED', msg, true);
        }
    }
    return tag;
}

exports.composeScalar = composeScalar;


/***/ }),

/***/ 9984:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var node_process = __nccwpck_require__(932);
var directives = __nccwpck_require__(1342);
var Document = __nccwpck_require__(3021);
var errors = __nccwpck_require__(1464);
var identity = __nccwpck_require__(1127);
var composeDoc = __nccwpck_require__(3683);
var resolveEnd = __nccwpck_require__(7788);

function getErrorPos(src) {
    if (typeof src === 'number')
        return [src, src + 1];
    if (Array.isArray(src))
        return src.length === 2 ? src : [src[0], src[1]];
    const { offset, source } = src;
    return [offset, offset + (typeof source === 'string' ? source.length : 1)];
}
function parsePrelude(prelude) {
    let comment = '';
    let atComment = false;
    let afterEmptyLine = false;
    for (let i = 0; i < prelude.length; ++i) {
        const source = prelude[i];
        switch (source[0]) {
            case '#':
                comment +=
                    (comment === '' ? '' : afterEmptyLine ? '\n\n' : '\n') +
                        (source.substring(1) || ' ');
                atComment = true;
                afterEmptyLine = false;
                break;
            case '%':
                if (prelude[i + 1]?.[0] !== '#')
                    i += 1;
                atComment = false;
                break;
            default:
                // This may be wrong after doc-end, but in that case it doesn't matter
                if (!atComment)
                    afterEmptyLine = true;
                atComment = false;
        }
    }
    return { comment, afterEmptyLine };
}
/**
 * Compose a stream of CST nodes into a stream of YAML Documents.
 *
 * ```ts
 * import { Composer, Parser } from 'yaml'
 *
 * const src: string = ...
 * const tokens = new Parser().parse(src)
 * const docs = new Composer().compose(tokens)
 * ```
 */
class Composer {
    constructor(options = {}) {
        this.doc = null;
        this.atDirectives = false;
        this.prelude = [];
        this.errors = [];
        this.warnings = [];
        this.onError = (source, code, message, warning) => {
            const pos = getErrorPos(source);
            if (warning)
                this.warnings.push(new errors.YAMLWarning(pos, code, message));
            else
                this.errors.push(new errors.YAMLParseError(pos, code, message));
        };
        // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing
        this.directives = new directives.Directives({ version: options.version || '1.2' });
        this.options = options;
    }
    decorate(doc, afterDoc) {
        const { comment, afterEmptyLine } = parsePrelude(this.prelude);
        //console.log({ dc: doc.comment, prelude, comment })
        if (comment) {
            const dc = doc.contents;
            if (afterDoc) {
                doc.comment = doc.comment ? `${doc.comment}\n${comment}` : comment;
            }
            else if (afterEmptyLine || doc.directives.docStart || !dc) {
                doc.commentBefore = comment;
            }
            else if (identity.isCollection(dc) && !dc.flow && dc.items.length > 0) {
                let it = dc.items[0];
                if (identity.isPair(it))
                    it = it.key;
                const cb = it.commentBefore;
                it.commentBefore = cb ? `${comment}\n${cb}` : comment;
            }
            else {
                const cb = dc.commentBefore;
                dc.commentBefore = cb ? `${comment}\n${cb}` : comment;
            }
        }
        if (afterDoc) {
            for (let i = 0; i < this.errors.length; ++i)
                doc.errors.push(this.errors[i]);
            for (let i = 0; i < this.warnings.length; ++i)
                doc.warnings.push(this.warnings[i]);
        }
        else {
            doc.errors = this.errors;
            doc.warnings = this.warnings;
        }
        this.prelude = [];
        this.errors = [];
        this.warnings = [];
    }
    /**
     * Current stream status information.
     *
     * Mostly useful at the end of input for an empty stream.
     */
    streamInfo() {
        return {
            comment: parsePrelude(this.prelude).comment,
            directives: this.directives,
            errors: this.errors,
            warnings: this.warnings
        };
    }
    /**
     * Compose tokens into documents.
     *
     * @param forceDoc - If the stream contains no document, still emit a final document including any comments and directives that would be applied to a subsequent document.
     * @param endOffset - Should be set if `forceDoc` is also set, to set the document range end and to indicate errors correctly.
     */
    *compose(tokens, forceDoc = false, endOffset = -1) {
        for (const token of tokens)
            yield* this.next(token);
        yield* this.end(forceDoc, endOffset);
    }
    /** Advance the composer by one CST token. */
    *next(token) {
        if (node_process.env.LOG_STREAM)
            console.dir(token, { depth: null });
        switch (token.type) {
            case 'directive':
                this.directives.add(token.source, (offset, message, warning) => {
                    const pos = getErrorPos(token);
                    pos[0] += offset;
                    this.onError(pos, 'BAD_DIRECTIVE', message, warning);
                });
                this.prelude.push(token.source);
                this.atDirectives = true;
                break;
            case 'document': {
                const doc = composeDoc.composeDoc(this.options, this.directives, token, this.onError);
                if (this.atDirectives && !doc.directives.docStart)
                    this.onError(token, 'MISSING_CHAR', 'Missing directives-end/doc-start indicator line');
                this.decorate(doc, false);
                if (this.doc)
                    yield this.doc;
                this.doc = doc;
                this.atDirectives = false;
                break;
            }
            case 'byte-order-mark':
            case 'space':
                break;
            case 'comment':
            case 'newline':
                this.prelude.push(token.source);
                break;
            case 'error': {
                const msg = token.source
                    ? `${token.message}: ${JSON.stringify(token.source)}`
                    : token.message;
                const error = new errors.YAMLParseError(getErrorPos(token), 'UNEXPECTED_TOKEN', msg);
                if (this.atDirectives || !this.doc)
                    this.errors.push(error);
                else
                    this.doc.errors.push(error);
                break;
            }
            case 'doc-end': {
                if (!this.doc) {
                    const msg = 'Unexpected doc-end without preceding document';
                    this.errors.push(new errors.YAMLParseError(getErrorPos(token), 'UNEXPECTED_TOKEN', msg));
                    break;
                }
                this.doc.directives.docEnd = true;
                const end = resolveEnd.resolveEnd(token.end, token.offset + token.source.length, this.doc.options.strict, this.onError);
                this.decorate(this.doc, true);
                if (end.comment) {
                    const dc = this.doc.comment;
                    this.doc.comment = dc ? `${dc}\n${end.comment}` : end.comment;
                }
                this.doc.range[2] = end.offset;
                break;
            }
            default:
                this.errors.push(new errors.YAMLParseError(getErrorPos(token), 'UNEXPECTED_TOKEN', `Unsupported token ${token.type}`));
        }
    }
    /**
     * Call at end of input to yield any remaining document.
     *
     * @param forceDoc - If the stream contains no document, still emit a final document including any comments and directives that would be applied to a subsequent document.
     * @param endOffset - Should be set if `forceDoc` is also set, to set the document range end and to indicate errors correctly.
     */
    *end(forceDoc = false, endOffset = -1) {
        if (this.doc) {
            this.decorate(this.doc, true);
            yield this.doc;
            this.doc = null;
        }
        else if (forceDoc) {
            const opts = Object.assign({ _directives: this.directives }, this.options);
            const doc = new Document.Document(undefined, opts);
            if (this.atDirectives)
                this.onError(endOffset, 'MISSING_CHAR', 'Missing directives-end indicator line');
            doc.range = [0, endOffset, endOffset];
            this.decorate(doc, false);
            yield doc;
        }
    }
}

exports.Composer = Composer;


/***/ }),

/***/ 7103:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Pair = __nccwpck_require__(7165);
var YAMLMap = __nccwpck_require__(4454);
var resolveProps = __nccwpck_require__(4631);
var utilContainsNewline = __nccwpck_require__(9499);
var utilFlowIndentCheck = __nccwpck_require__(4051);
var utilMapIncludes = __nccwpck_require__(1187);

const startColMsg = 'All mapping items must start at the same column';
function resolveBlockMap({ composeNode, composeEmptyNode }, ctx, bm, onError, tag) {
    const NodeClass = tag?.nodeClass ?? YAMLMap.YAMLMap;
    const map = new NodeClass(ctx.schema);
    if (ctx.atRoot)
        ctx.atRoot = false;
    let offset = bm.offset;
    let commentEnd = null;
    for (const collItem of bm.items) {
        const { start, key, sep, value } = collItem;
        // key properties
        const keyProps = resolveProps.resolveProps(start, {
            indicator: 'explicit-key-ind',
            next: key ?? sep?.[0],
            offset,
            onError,
            parentIndent: bm.indent,
            startOnNewline: true
        });
        const implicitKey = !keyProps.found;
        if (implicitKey) {
            if (key) {
                if (key.type === 'block-seq')
                    onError(offset, 'BLOCK_AS_IMPLICIT_KEY', 'A block sequence may not be used as an implicit map key');
                else if ('indent' in key && key.indent !== bm.indent)
                    onError(offset, 'BAD_INDENT', startColMsg);
            }
            if (!keyProps.anchor && !keyProps.tag && !sep) {
                commentEnd = keyProps.end;
                if (keyProps.comment) {
                    if (map.comment)
                        map.comment += '\n' + keyProps.comment;
                    else
                        map.comment = keyProps.comment;
                }
                continue;
            }
            if (keyProps.newlineAfterProp || utilContainsNewline.containsNewline(key)) {
                onError(key ?? start[start.length - 1], 'MULTILINE_IMPLICIT_KEY', 'Implicit keys need to be on a single line');
            }
        }
        else if (keyProps.found?.indent !== bm.indent) {
            onError(offset, 'BAD_INDENT', startColMsg);
        }
        // key value
        ctx.atKey = true;
        const keyStart = keyProps.end;
        const keyNode = key
            ? composeNode(ctx, key, keyProps, onError)
            : composeEmptyNode(ctx, keyStart, start, null, keyProps, onError);
        if (ctx.schema.compat)
            utilFlowIndentCheck.flowIndentCheck(bm.indent, key, onError);
        ctx.atKey = false;
        if (utilMapIncludes.mapIncludes(ctx, map.items, keyNode))
            onError(keyStart, 'DUPLICATE_KEY', 'Map keys must be unique');
        // value properties
        const valueProps = resolveProps.resolveProps(sep ?? [], {
            indicator: 'map-value-ind',
            next: value,
            offset: keyNode.range[2],
            onError,
            parentIndent: bm.indent,
            startOnNewline: !key || key.type === 'block-scalar'
        });
        offset = valueProps.end;
        if (valueProps.found) {
            if (implicitKey) {
                if (value?.type === 'block-map' && !valueProps.hasNewline)
                    onError(offset, 'BLOCK_AS_IMPLICIT_KEY', 'Nested mappings are not allowed in compact mappings');
                if (ctx.options.strict &&
                    keyProps.start < valueProps.found.offset - 1024)
                    onError(keyNode.range, 'KEY_OVER_1024_CHARS', 'The : indicator must be at most 1024 chars after the start of an implicit block mapping key');
            }
            // value value
            const valueNode = value
                ? composeNode(ctx, value, valueProps, onError)
                : composeEmptyNode(ctx, offset, sep, null, valueProps, onError);
            if (ctx.schema.compat)
                utilFlowIndentCheck.flowIndentCheck(bm.indent, value, onError);
            offset = valueNode.range[2];
            const pair = new Pair.Pair(keyNode, valueNode);
            if (ctx.options.keepSourceTokens)
                pair.srcToken = collItem;
            map.items.push(pair);
        }
        else {
            // key with no value
            if (implicitKey)
                onError(keyNode.range, 'MISSING_CHAR', 'Implicit map keys need to be followed by map values');
            if (valueProps.comment) {
                if (keyNode.comment)
                    keyNode.comment += '\n' + valueProps.comment;
                else
                    keyNode.comment = valueProps.comment;
            }
            const pair = new Pair.Pair(keyNode);
            if (ctx.options.keepSourceTokens)
                pair.srcToken = collItem;
            map.items.push(pair);
        }
    }
    if (commentEnd && commentEnd < offset)
        onError(commentEnd, 'IMPOSSIBLE', 'Map comment with trailing content');
    map.range = [bm.offset, offset, commentEnd ?? offset];
    return map;
}

exports.resolveBlockMap = resolveBlockMap;


/***/ }),

/***/ 8913:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);

function resolveBlockScalar(ctx, scalar, onError) {
    const start = scalar.offset;
    const header = parseBlockScalarHeader(scalar, ctx.options.strict, onError);
    if (!header)
        return { value: '', type: null, comment: '', range: [start, start, start] };
    const type = header.mode === '>' ? Scalar.Scalar.BLOCK_FOLDED : Scalar.Scalar.BLOCK_LITERAL;
    const lines = scalar.source ? splitLines(scalar.source) : [];
    // determine the end of content & start of chomping
    let chompStart = lines.length;
    for (let i = lines.length - 1; i >= 0; --i) {
        const content = lines[i][1];
        if (content === '' || content === '\r')
            chompStart = i;
        else
            break;
    }
    // shortcut for empty contents
    if (chompStart === 0) {
        const value = header.chomp === '+' && lines.length > 0
            ? '\n'.repeat(Math.max(1, lines.length - 1))
            : '';
        let end = start + header.length;
        if (scalar.source)
            end += scalar.source.length;
        return { value, type, comment: header.comment, range: [start, end, end] };
    }
    // find the indentation level to trim from start
    let trimIndent = scalar.indent + header.indent;
    let offset = scalar.offset + header.length;
    let contentStart = 0;
    for (let i = 0; i < chompStart; ++i) {
        const [indent, content] = lines[i];
        if (content === '' || content === '\r') {
            if (header.indent === 0 && indent.length > trimIndent)
                trimIndent = indent.length;
        }
        else {
            if (indent.length < trimIndent) {
                const message = 'Block scalars with more-indented leading empty lines must use an explicit indentation indicator';
                onError(offset + indent.length, 'MISSING_CHAR', message);
            }
            if (header.indent === 0)
                trimIndent = indent.length;
            contentStart = i;
            if (trimIndent === 0 && !ctx.atRoot) {
                const message = 'Block scalar values in collections must be indented';
                onError(offset, 'BAD_INDENT', message);
            }
            break;
        }
        offset += indent.length + content.length + 1;
    }
    // include trailing more-indented empty lines in content
    for (let i = lines.length - 1; i >= chompStart; --i) {
        if (lines[i][0].length > trimIndent)
            chompStart = i + 1;
    }
    let value = '';
    let sep = '';
    let prevMoreIndented = false;
    // leading whitespace is kept intact
    for (let i = 0; i < contentStart; ++i)
        value += lines[i][0].slice(trimIndent) + '\n';
    for (let i = contentStart; i < chompStart; ++i) {
        let [indent, content] = lines[i];
        offset += indent.length + content.length + 1;
        const crlf = content[content.length - 1] === '\r';
        if (crlf)
            content = content.slice(0, -1);
        /* istanbul ignore if already caught in lexer */
        if (content && indent.length < trimIndent) {
            const src = header.indent
                ? 'explicit indentation indicator'
                : 'first line';
            const message = `Block scalar lines must not be less indented than their ${src}`;
            onError(offset - content.length - (crlf ? 2 : 1), 'BAD_INDENT', message);
            indent = '';
        }
        if (type === Scalar.Scalar.BLOCK_LITERAL) {
            value += sep + indent.slice(trimIndent) + content;
            sep = '\n';
        }
        else if (indent.length > trimIndent || content[0] === '\t') {
            // more-indented content within a folded block
            if (sep === ' ')
                sep = '\n';
            else if (!prevMoreIndented && sep === '\n')
                sep = '\n\n';
            value += sep + indent.slice(trimIndent) + content;
            sep = '\n';
            prevMoreIndented = true;
        }
        else if (content === '') {
            // empty line
            if (sep === '\n')
                value += '\n';
            else
                sep = '\n';
        }
        else {
            value += sep + content;
            sep = ' ';
            prevMoreIndented = false;
        }
    }
    switch (header.chomp) {
        case '-':
            break;
        case '+':
            for (let i = chompStart; i < lines.length; ++i)
                value += '\n' + lines[i][0].slice(trimIndent);
            if (value[value.length - 1] !== '\n')
                value += '\n';
            break;
        default:
            value += '\n';
    }
    const end = start + header.length + scalar.source.length;
    return { value, type, comment: header.comment, range: [start, end, end] };
}
function parseBlockScalarHeader({ offset, props }, strict, onError) {
    /* istanbul ignore if should not happen */
    if (props[0].type !== 'block-scalar-header') {
        onError(props[0], 'IMPOSSIBLE', 'Block scalar header not found');
        return null;
    }
    const { source } = props[0];
    const mode = source[0];
    let indent = 0;
    let chomp = '';
    let error = -1;
    for (let i = 1; i < source.length; ++i) {
        const ch = source[i];
        if (!chomp && (ch === '-' || ch === '+'))
            chomp = ch;
        else {
            const n = Number(ch);
            if (!indent && n)
                indent = n;
            else if (error === -1)
                error = offset + i;
        }
    }
    if (error !== -1)
        onError(error, 'UNEXPECTED_TOKEN', `Block scalar header includes extra characters: ${source}`);
    let hasSpace = false;
    let comment = '';
    let length = source.length;
    for (let i = 1; i < props.length; ++i) {
        const token = props[i];
        switch (token.type) {
            case 'space':
                hasSpace = true;
            // fallthrough
            case 'newline':
                length += token.source.length;
                break;
            case 'comment':
                if (strict && !hasSpace) {
                    const message = 'Comments must be separated from other tokens by white space characters';
                    onError(token, 'MISSING_CHAR', message);
                }
                length += token.source.length;
                comment = token.source.substring(1);
                break;
            case 'error':
                onError(token, 'UNEXPECTED_TOKEN', token.message);
                length += token.source.length;
                break;
            /* istanbul ignore next should not happen */
            default: {
                const message = `Unexpected token in block scalar header: ${token.type}`;
                onError(token, 'UNEXPECTED_TOKEN', message);
                const ts = token.source;
                if (ts && typeof ts === 'string')
                    length += ts.length;
            }
        }
    }
    return { mode, indent, chomp, comment, length };
}
/** @returns Array of lines split up as `[indent, content]` */
function splitLines(source) {
    const split = source.split(/\n( *)/);
    const first = split[0];
    const m = first.match(/^( *)/);
    const line0 = m?.[1]
        ? [m[1], first.slice(m[1].length)]
        : ['', first];
    const lines = [line0];
    for (let i = 1; i < split.length; i += 2)
        lines.push([split[i], split[i + 1]]);
    return lines;
}

exports.resolveBlockScalar = resolveBlockScalar;


/***/ }),

/***/ 334:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var YAMLSeq = __nccwpck_require__(2223);
var resolveProps = __nccwpck_require__(4631);
var utilFlowIndentCheck = __nccwpck_require__(4051);

function resolveBlockSeq({ composeNode, composeEmptyNode }, ctx, bs, onError, tag) {
    const NodeClass = tag?.nodeClass ?? YAMLSeq.YAMLSeq;
    const seq = new NodeClass(ctx.schema);
    if (ctx.atRoot)
        ctx.atRoot = false;
    if (ctx.atKey)
        ctx.atKey = false;
    let offset = bs.offset;
    let commentEnd = null;
    for (const { start, value } of bs.items) {
        const props = resolveProps.resolveProps(start, {
            indicator: 'seq-item-ind',
            next: value,
            offset,
            onError,
            parentIndent: bs.indent,
            startOnNewline: true
        });
        if (!props.found) {
            if (props.anchor || props.tag || value) {
                if (value?.type === 'block-seq')
                    onError(props.end, 'BAD_INDENT', 'All sequence items must start at the same column');
                else
                    onError(offset, 'MISSING_CHAR', 'Sequence item without - indicator');
            }
            else {
                commentEnd = props.end;
                if (props.comment)
                    seq.comment = props.comment;
                continue;
            }
        }
        const node = value
            ? composeNode(ctx, value, props, onError)
            : composeEmptyNode(ctx, props.end, start, null, props, onError);
        if (ctx.schema.compat)
            utilFlowIndentCheck.flowIndentCheck(bs.indent, value, onError);
        offset = node.range[2];
        seq.items.push(node);
    }
    seq.range = [bs.offset, offset, commentEnd ?? offset];
    return seq;
}

exports.resolveBlockSeq = resolveBlockSeq;


/***/ }),

/***/ 7788:
/***/ ((__unused_webpack_module, exports) => {



function resolveEnd(end, offset, reqSpace, onError) {
    let comment = '';
    if (end) {
        let hasSpace = false;
        let sep = '';
        for (const token of end) {
            const { source, type } = token;
            switch (type) {
                case 'space':
                    hasSpace = true;
                    break;
                case 'comment': {
                    if (reqSpace && !hasSpace)
                        onError(token, 'MISSING_CHAR', 'Comments must be separated from other tokens by white space characters');
                    const cb = source.substring(1) || ' ';
                    if (!comment)
                        comment = cb;
                    else
                        comment += sep + cb;
                    sep = '';
                    break;
                }
                case 'newline':
                    if (comment)
                        sep += source;
                    hasSpace = true;
                    break;
                default:
                    onError(token, 'UNEXPECTED_TOKEN', `Unexpected ${type} at node end`);
            }
            offset += source.length;
        }
    }
    return { comment, offset };
}

exports.resolveEnd = resolveEnd;


/***/ }),

/***/ 3142:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var YAMLMap = __nccwpck_require__(4454);
var YAMLSeq = __nccwpck_require__(2223);
var resolveEnd = __nccwpck_require__(7788);
var resolveProps = __nccwpck_require__(4631);
var utilContainsNewline = __nccwpck_require__(9499);
var utilMapIncludes = __nccwpck_require__(1187);

const blockMsg = 'Block collections are not allowed within flow collections';
const isBlock = (token) => token && (token.type === 'block-map' || token.type === 'block-seq');
function resolveFlowCollection({ composeNode, composeEmptyNode }, ctx, fc, onError, tag) {
    const isMap = fc.start.source === '{';
    const fcName = isMap ? 'flow map' : 'flow sequence';
    const NodeClass = (tag?.nodeClass ?? (isMap ? YAMLMap.YAMLMap : YAMLSeq.YAMLSeq));
    const coll = new NodeClass(ctx.schema);
    coll.flow = true;
    const atRoot = ctx.atRoot;
    if (atRoot)
        ctx.atRoot = false;
    if (ctx.atKey)
        ctx.atKey = false;
    let offset = fc.offset + fc.start.source.length;
    for (let i = 0; i < fc.items.length; ++i) {
        const collItem = fc.items[i];
        const { start, key, sep, value } = collItem;
        const props = resolveProps.resolveProps(start, {
            flow: fcName,
            indicator: 'explicit-key-ind',
            next: key ?? sep?.[0],
            offset,
            onError,
            parentIndent: fc.indent,
            startOnNewline: false
        });
        if (!props.found) {
            if (!props.anchor && !props.tag && !sep && !value) {
                if (i === 0 && props.comma)
                    onError(props.comma, 'UNEXPECTED_TOKEN', `Unexpected , in ${fcName}`);
                else if (i < fc.items.length - 1)
                    onError(props.start, 'UNEXPECTED_TOKEN', `Unexpected empty item in ${fcName}`);
                if (props.comment) {
                    if (coll.comment)
                        coll.comment += '\n' + props.comment;
                    else
                        coll.comment = props.comment;
                }
                offset = props.end;
                continue;
            }
            if (!isMap && ctx.options.strict && utilContainsNewline.containsNewline(key))
                onError(key, // checked by containsNewline()
                'MULTILINE_IMPLICIT_KEY', 'Implicit keys of flow sequence pairs need to be on a single line');
        }
        if (i === 0) {
            if (props.comma)
                onError(props.comma, 'UNEXPECTED_TOKEN', `Unexpected , in ${fcName}`);
        }
        else {
            if (!props.comma)
                onError(props.start, 'MISSING_CHAR', `Missing , between ${fcName} items`);
            if (props.comment) {
                let prevItemComment = '';
                loop: for (const st of start) {
                    switch (st.type) {
                        case 'comma':
                        case 'space':
                            break;
                        case 'comment':
                            prevItemComment = st.source.substring(1);
                            break loop;
                        default:
                            break loop;
                    }
                }
                if (prevItemComment) {
                    let prev = coll.items[coll.items.length - 1];
                    if (identity.isPair(prev))
                        prev = prev.value ?? prev.key;
                    if (prev.comment)
                        prev.comment += '\n' + prevItemComment;
                    else
                        prev.comment = prevItemComment;
                    props.comment = props.comment.substring(prevItemComment.length + 1);
                }
            }
        }
        if (!isMap && !sep && !props.found) {
            // item is a value in a seq
            // → key & sep are empty, start does not include ? or :
            const valueNode = value
                ? composeNode(ctx, value, props, onError)
                : composeEmptyNode(ctx, props.end, sep, null, props, onError);
            coll.items.push(valueNode);
            offset = valueNode.range[2];
            if (isBlock(value))
                onError(valueNode.range, 'BLOCK_IN_FLOW', blockMsg);
        }
        else {
            // item is a key+value pair
            // key value
            ctx.atKey = true;
            const keyStart = props.end;
            const keyNode = key
                ? composeNode(ctx, key, props, onError)
                : composeEmptyNode(ctx, keyStart, start, null, props, onError);
            if (isBlock(key))
                onError(keyNode.range, 'BLOCK_IN_FLOW', blockMsg);
            ctx.atKey = false;
            // value properties
            const valueProps = resolveProps.resolveProps(sep ?? [], {
                flow: fcName,
                indicator: 'map-value-ind',
                next: value,
                offset: keyNode.range[2],
                onError,
                parentIndent: fc.indent,
                startOnNewline: false
            });
            if (valueProps.found) {
                if (!isMap && !props.found && ctx.options.strict) {
                    if (sep)
                        for (const st of sep) {
                            if (st === valueProps.found)
                                break;
                            if (st.type === 'newline') {
                                onError(st, 'MULTILINE_IMPLICIT_KEY', 'Implicit keys of flow sequence pairs need to be on a single line');
                                break;
                            }
                        }
                    if (props.start < valueProps.found.offset - 1024)
                        onError(valueProps.found, 'KEY_OVER_1024_CHARS', 'The : indicator must be at most 1024 chars after the start of an implicit flow sequence key');
                }
            }
            else if (value) {
                if ('source' in value && value.source?.[0] === ':')
                    onError(value, 'MISSING_CHAR', `Missing space after : in ${fcName}`);
                else
                    onError(valueProps.start, 'MISSING_CHAR', `Missing , or : between ${fcName} items`);
            }
            // value value
            const valueNode = value
                ? composeNode(ctx, value, valueProps, onError)
                : valueProps.found
                    ? composeEmptyNode(ctx, valueProps.end, sep, null, valueProps, onError)
                    : null;
            if (valueNode) {
                if (isBlock(value))
                    onError(valueNode.range, 'BLOCK_IN_FLOW', blockMsg);
            }
            else if (valueProps.comment) {
                if (keyNode.comment)
                    keyNode.comment += '\n' + valueProps.comment;
                else
                    keyNode.comment = valueProps.comment;
            }
            const pair = new Pair.Pair(keyNode, valueNode);
            if (ctx.options.keepSourceTokens)
                pair.srcToken = collItem;
            if (isMap) {
                const map = coll;
                if (utilMapIncludes.mapIncludes(ctx, map.items, keyNode))
                    onError(keyStart, 'DUPLICATE_KEY', 'Map keys must be unique');
                map.items.push(pair);
            }
            else {
                const map = new YAMLMap.YAMLMap(ctx.schema);
                map.flow = true;
                map.items.push(pair);
                const endRange = (valueNode ?? keyNode).range;
                map.range = [keyNode.range[0], endRange[1], endRange[2]];
                coll.items.push(map);
            }
            offset = valueNode ? valueNode.range[2] : valueProps.end;
        }
    }
    const expectedEnd = isMap ? '}' : ']';
    const [ce, ...ee] = fc.end;
    let cePos = offset;
    if (ce?.source === expectedEnd)
        cePos = ce.offset + ce.source.length;
    else {
        const name = fcName[0].toUpperCase() + fcName.substring(1);
        const msg = atRoot
            ? `${name} must end with a ${expectedEnd}`
            : `${name} in block collection must be sufficiently indented and end with a ${expectedEnd}`;
        onError(offset, atRoot ? 'MISSING_CHAR' : 'BAD_INDENT', msg);
        if (ce && ce.source.length !== 1)
            ee.unshift(ce);
    }
    if (ee.length > 0) {
        const end = resolveEnd.resolveEnd(ee, cePos, ctx.options.strict, onError);
        if (end.comment) {
            if (coll.comment)
                coll.comment += '\n' + end.comment;
            else
                coll.comment = end.comment;
        }
        coll.range = [fc.offset, cePos, end.offset];
    }
    else {
        coll.range = [fc.offset, cePos, cePos];
    }
    return coll;
}

exports.resolveFlowCollection = resolveFlowCollection;


/***/ }),

/***/ 6842:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var resolveEnd = __nccwpck_require__(7788);

function resolveFlowScalar(scalar, strict, onError) {
    const { offset, type, source, end } = scalar;
    let _type;
    let value;
    const _onError = (rel, code, msg) => onError(offset + rel, code, msg);
    switch (type) {
        case 'scalar':
            _type = Scalar.Scalar.PLAIN;
            value = plainValue(source, _onError);
            break;
        case 'single-quoted-scalar':
            _type = Scalar.Scalar.QUOTE_SINGLE;
            value = singleQuotedValue(source, _onError);
            break;
        case 'double-quoted-scalar':
            _type = Scalar.Scalar.QUOTE_DOUBLE;
            value = doubleQuotedValue(source, _onError);
            break;
        /* istanbul ignore next should not happen */
        default:
            onError(scalar, 'UNEXPECTED_TOKEN', `Expected a flow scalar value, but found: ${type}`);
            return {
                value: '',
                type: null,
                comment: '',
                range: [offset, offset + source.length, offset + source.length]
            };
    }
    const valueEnd = offset + source.length;
    const re = resolveEnd.resolveEnd(end, valueEnd, strict, onError);
    return {
        value,
        type: _type,
        comment: re.comment,
        range: [offset, valueEnd, re.offset]
    };
}
function plainValue(source, onError) {
    let badChar = '';
    switch (source[0]) {
        /* istanbul ignore next should not happen */
        case '\t':
            badChar = 'a tab character';
            break;
        case ',':
            badChar = 'flow indicator character ,';
            break;
        case '%':
            badChar = 'directive indicator character %';
            break;
        case '|':
        case '>': {
            badChar = `block scalar indicator ${source[0]}`;
            break;
        }
        case '@':
        case '`': {
            badChar = `reserved character ${source[0]}`;
            break;
        }
    }
    if (badChar)
        onError(0, 'BAD_SCALAR_START', `Plain value cannot start with ${badChar}`);
    return unfoldLines(source);
}
function singleQuotedValue(source, onError) {
    if (source[source.length - 1] !== "'" || source.length === 1)
        onError(source.length, 'MISSING_CHAR', "Missing closing 'quote");
    return unfoldLines(source.slice(1, -1)).replace(/''/g, "'");
}
function unfoldLines(source) {
    const line = /(.*?)\r?\n/sy;
    let match = line.exec(source);
    if (!match)
        return source;
    /**
     * The negative lookbehinds in these RegExps are to
     * prevent causing a polynomial search time in certain cases.
     *
     * The try-catch is for Safari < 16.4 and other old browsers:
     * https://caniuse.com/js-regexp-lookbehind
     */
    let trimEnd, trimBoth;
    try {
        trimEnd = new RegExp('(?<![ \t])[ \t]+$');
        trimBoth = new RegExp('^[ \t]+|(?<![ \t])[ \t]+$', 'g');
    }
    catch {
        trimEnd = /[ \t]+$/;
        trimBoth = /^[ \t]+|[ \t]+$/g;
    }
    let res = match[1].replace(trimEnd, '');
    let sep = ' ';
    let pos = line.lastIndex;
    while ((match = line.exec(source))) {
        const lm = match[1].replace(trimBoth, '');
        if (lm === '') {
            if (sep === '\n')
                res += sep;
            else
                sep = '\n';
        }
        else {
            res += sep + lm;
            sep = ' ';
        }
        pos = line.lastIndex;
    }
    const last = /[ \t]*(.*)/sy;
    last.lastIndex = pos;
    match = last.exec(source);
    return res + sep + (match?.[1] ?? '');
}
function doubleQuotedValue(source, onError) {
    let res = '';
    for (let i = 1; i < source.length - 1; ++i) {
        const ch = source[i];
        if (ch === '\r' && source[i + 1] === '\n')
            continue;
        if (ch === '\n') {
            const { fold, offset } = foldNewline(source, i);
            res += fold;
            i = offset;
        }
        else if (ch === '\\') {
            let next = source[++i];
            const cc = escapeCodes[next];
            if (cc)
                res += cc;
            else if (next === '\n') {
                // skip escaped newlines, but still trim the following line
                next = source[i + 1];
                while (next === ' ' || next === '\t')
                    next = source[++i + 1];
            }
            else if (next === '\r' && source[i + 1] === '\n') {
                // skip escaped CRLF newlines, but still trim the following line
                next = source[++i + 1];
                while (next === ' ' || next === '\t')
                    next = source[++i + 1];
            }
            else if (next === 'x' || next === 'u' || next === 'U') {
                const length = next === 'x' ? 2 : next === 'u' ? 4 : 8;
                res += parseCharCode(source, i + 1, length, onError);
                i += length;
            }
            else {
                const raw = source.substr(i - 1, 2);
                onError(i - 1, 'BAD_DQ_ESCAPE', `Invalid escape sequence ${raw}`);
                res += raw;
            }
        }
        else if (ch === ' ' || ch === '\t') {
            // trim trailing whitespace
            const wsStart = i;
            let next = source[i + 1];
            while (next === ' ' || next === '\t')
                next = source[++i + 1];
            if (next !== '\n' && !(next === '\r' && source[i + 2] === '\n'))
                res += i > wsStart ? source.slice(wsStart, i + 1) : ch;
        }
        else {
            res += ch;
        }
    }
    if (source[source.length - 1] !== '"' || source.length === 1)
        onError(source.length, 'MISSING_CHAR', 'Missing closing "quote');
    return res;
}
/**
 * Fold a single newline into a space, multiple newlines to N - 1 newlines.
 * Presumes `source[offset] === '\n'`
 */
function foldNewline(source, offset) {
    let fold = '';
    let ch = source[offset + 1];
    while (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
        if (ch === '\r' && source[offset + 2] !== '\n')
            break;
        if (ch === '\n')
            fold += '\n';
        offset += 1;
        ch = source[offset + 1];
    }
    if (!fold)
        fold = ' ';
    return { fold, offset };
}
const escapeCodes = {
    '0': '\0', // null character
    a: '\x07', // bell character
    b: '\b', // backspace
    e: '\x1b', // escape character
    f: '\f', // form feed
    n: '\n', // line feed
    r: '\r', // carriage return
    t: '\t', // horizontal tab
    v: '\v', // vertical tab
    N: '\u0085', // Unicode next line
    _: '\u00a0', // Unicode non-breaking space
    L: '\u2028', // Unicode line separator
    P: '\u2029', // Unicode paragraph separator
    ' ': ' ',
    '"': '"',
    '/': '/',
    '\\': '\\',
    '\t': '\t'
};
function parseCharCode(source, offset, length, onError) {
    const cc = source.substr(offset, length);
    const ok = cc.length === length && /^[0-9a-fA-F]+$/.test(cc);
    const code = ok ? parseInt(cc, 16) : NaN;
    try {
        return String.fromCodePoint(code);
    }
    catch {
        const raw = source.substr(offset - 2, length + 2);
        onError(offset - 2, 'BAD_DQ_ESCAPE', `Invalid escape sequence ${raw}`);
        return raw;
    }
}

exports.resolveFlowScalar = resolveFlowScalar;


/***/ }),

/***/ 4631:
/***/ ((__unused_webpack_module, exports) => {



function resolveProps(tokens, { flow, indicator, next, offset, onError, parentIndent, startOnNewline }) {
    let spaceBefore = false;
    let atNewline = startOnNewline;
    let hasSpace = startOnNewline;
    let comment = '';
    let commentSep = '';
    let hasNewline = false;
    let reqSpace = false;
    let tab = null;
    let anchor = null;
    let tag = null;
    let newlineAfterProp = null;
    let comma = null;
    let found = null;
    let start = null;
    for (const token of tokens) {
        if (reqSpace) {
            if (token.type !== 'space' &&
                token.type !== 'newline' &&
                token.type !== 'comma')
                onError(token.offset, 'MISSING_CHAR', 'Tags and anchors must be separated from the next token by white space');
            reqSpace = false;
        }
        if (tab) {
            if (atNewline && token.type !== 'comment' && token.type !== 'newline') {
                onError(tab, 'TAB_AS_INDENT', 'Tabs are not allowed as indentation');
            }
            tab = null;
        }
        switch (token.type) {
            case 'space':
                // At the doc level, tabs at line start may be parsed
                // as leading white space rather than indentation.
                // In a flow collection, only the parser handles indent.
                if (!flow &&
                    (indicator !== 'doc-start' || next?.type !== 'flow-collection') &&
                    token.source.includes('\t')) {
                    tab = token;
                }
                hasSpace = true;
                break;
            case 'comment': {
                if (!hasSpace)
                    onError(token, 'MISSING_CHAR', 'Comments must be separated from other tokens by white space characters');
                const cb = token.source.substring(1) || ' ';
                if (!comment)
                    comment = cb;
                else
                    comment += commentSep + cb;
                commentSep = '';
                atNewline = false;
                break;
            }
            case 'newline':
                if (atNewline) {
                    if (comment)
                        comment += token.source;
                    else if (!found || indicator !== 'seq-item-ind')
                        spaceBefore = true;
                }
                else
                    commentSep += token.source;
                atNewline = true;
                hasNewline = true;
                if (anchor || tag)
                    newlineAfterProp = token;
                hasSpace = true;
                break;
            case 'anchor':
                if (anchor)
                    onError(token, 'MULTIPLE_ANCHORS', 'A node can have at most one anchor');
                if (token.source.endsWith(':'))
                    onError(token.offset + token.source.length - 1, 'BAD_ALIAS', 'Anchor ending in : is ambiguous', true);
                anchor = token;
                start ?? (start = token.offset);
                atNewline = false;
                hasSpace = false;
                reqSpace = true;
                break;
            case 'tag': {
                if (tag)
                    onError(token, 'MULTIPLE_TAGS', 'A node can have at most one tag');
                tag = token;
                start ?? (start = token.offset);
                atNewline = false;
                hasSpace = false;
                reqSpace = true;
                break;
            }
            case indicator:
                // Could here handle preceding comments differently
                if (anchor || tag)
                    onError(token, 'BAD_PROP_ORDER', `Anchors and tags must be after the ${token.source} indicator`);
                if (found)
                    onError(token, 'UNEXPECTED_TOKEN', `Unexpected ${token.source} in ${flow ?? 'collection'}`);
                found = token;
                atNewline =
                    indicator === 'seq-item-ind' || indicator === 'explicit-key-ind';
                hasSpace = false;
                break;
            case 'comma':
                if (flow) {
                    if (comma)
                        onError(token, 'UNEXPECTED_TOKEN', `Unexpected , in ${flow}`);
                    comma = token;
                    atNewline = false;
                    hasSpace = false;
                    break;
                }
            // else fallthrough
            default:
                onError(token, 'UNEXPECTED_TOKEN', `Unexpected ${token.type} token`);
                atNewline = false;
                hasSpace = false;
        }
    }
    const last = tokens[tokens.length - 1];
    const end = last ? last.offset + last.source.length : offset;
    if (reqSpace &&
        next &&
        next.type !== 'space' &&
        next.type !== 'newline' &&
        next.type !== 'comma' &&
        (next.type !== 'scalar' || next.source !== '')) {
        onError(next.offset, 'MISSING_CHAR', 'Tags and anchors must be separated from the next token by white space');
    }
    if (tab &&
        ((atNewline && tab.indent <= parentIndent) ||
            next?.type === 'block-map' ||
            next?.type === 'block-seq'))
        onError(tab, 'TAB_AS_INDENT', 'Tabs are not allowed as indentation');
    return {
        comma,
        found,
        spaceBefore,
        comment,
        hasNewline,
        anchor,
        tag,
        newlineAfterProp,
        end,
        start: start ?? end
    };
}

exports.resolveProps = resolveProps;


/***/ }),

/***/ 9499:
/***/ ((__unused_webpack_module, exports) => {



function containsNewline(key) {
    if (!key)
        return null;
    switch (key.type) {
        case 'alias':
        case 'scalar':
        case 'double-quoted-scalar':
        case 'single-quoted-scalar':
            if (key.source.includes('\n'))
                return true;
            if (key.end)
                for (const st of key.end)
                    if (st.type === 'newline')
                        return true;
            return false;
        case 'flow-collection':
            for (const it of key.items) {
                for (const st of it.start)
                    if (st.type === 'newline')
                        return true;
                if (it.sep)
                    for (const st of it.sep)
                        if (st.type === 'newline')
                            return true;
                if (containsNewline(it.key) || containsNewline(it.value))
                    return true;
            }
            return false;
        default:
            return true;
    }
}

exports.containsNewline = containsNewline;


/***/ }),

/***/ 2599:
/***/ ((__unused_webpack_module, exports) => {



function emptyScalarPosition(offset, before, pos) {
    if (before) {
        pos ?? (pos = before.length);
        for (let i = pos - 1; i >= 0; --i) {
            let st = before[i];
            switch (st.type) {
                case 'space':
                case 'comment':
                case 'newline':
                    offset -= st.source.length;
                    continue;
            }
            // Technically, an empty scalar is immediately after the last non-empty
            // node, but it's more useful to place it after any whitespace.
            st = before[++i];
            while (st?.type === 'space') {
                offset += st.source.length;
                st = before[++i];
            }
            break;
        }
    }
    return offset;
}

exports.emptyScalarPosition = emptyScalarPosition;


/***/ }),

/***/ 4051:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var utilContainsNewline = __nccwpck_require__(9499);

function flowIndentCheck(indent, fc, onError) {
    if (fc?.type === 'flow-collection') {
        const end = fc.end[0];
        if (end.indent === indent &&
            (end.source === ']' || end.source === '}') &&
            utilContainsNewline.containsNewline(fc)) {
            const msg = 'Flow end indicator should be more indented than parent';
            onError(end, 'BAD_INDENT', msg, true);
        }
    }
}

exports.flowIndentCheck = flowIndentCheck;


/***/ }),

/***/ 1187:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);

function mapIncludes(ctx, items, search) {
    const { uniqueKeys } = ctx.options;
    if (uniqueKeys === false)
        return false;
    const isEqual = typeof uniqueKeys === 'function'
        ? uniqueKeys
        : (a, b) => a === b || (identity.isScalar(a) && identity.isScalar(b) && a.value === b.value);
    return items.some(pair => isEqual(pair.key, search));
}

exports.mapIncludes = mapIncludes;


/***/ }),

/***/ 3021:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Alias = __nccwpck_require__(4065);
var Collection = __nccwpck_require__(101);
var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var toJS = __nccwpck_require__(4043);
var Schema = __nccwpck_require__(5840);
var stringifyDocument = __nccwpck_require__(6829);
var anchors = __nccwpck_require__(1596);
var applyReviver = __nccwpck_require__(3661);
var createNode = __nccwpck_require__(2404);
var directives = __nccwpck_require__(1342);

class Document {
    constructor(value, replacer, options) {
        /** A comment before this Document */
        this.commentBefore = null;
        /** A comment immediately after this Document */
        this.comment = null;
        /** Errors encountered during parsing. */
        this.errors = [];
        /** Warnings encountered during parsing. */
        this.warnings = [];
        Object.defineProperty(this, identity.NODE_TYPE, { value: identity.DOC });
        let _replacer = null;
        if (typeof replacer === 'function' || Array.isArray(replacer)) {
            _replacer = replacer;
        }
        else if (options === undefined && replacer) {
            options = replacer;
            replacer = undefined;
        }
        const opt = Object.assign({
            intAsBigInt: false,
            keepSourceTokens: false,
            logLevel: 'warn',
            prettyErrors: true,
            strict: true,
            stringKeys: false,
            uniqueKeys: true,
            version: '1.2'
        }, options);
        this.options = opt;
        let { version } = opt;
        if (options?._directives) {
            this.directives = options._directives.atDocument();
            if (this.directives.yaml.explicit)
                version = this.directives.yaml.version;
        }
        else
            this.directives = new directives.Directives({ version });
        this.setSchema(version, options);
        // @ts-expect-error We can't really know that this matches Contents.
        this.contents =
            value === undefined ? null : this.createNode(value, _replacer, options);
    }
    /**
     * Create a deep copy of this Document and its contents.
     *
     * Custom Node values that inherit from `Object` still refer to their original instances.
     */
    clone() {
        const copy = Object.create(Document.prototype, {
            [identity.NODE_TYPE]: { value: identity.DOC }
        });
        copy.commentBefore = this.commentBefore;
        copy.comment = this.comment;
        copy.errors = this.errors.slice();
        copy.warnings = this.warnings.slice();
        copy.options = Object.assign({}, this.options);
        if (this.directives)
            copy.directives = this.directives.clone();
        copy.schema = this.schema.clone();
        // @ts-expect-error We can't really know that this matches Contents.
        copy.contents = identity.isNode(this.contents)
            ? this.contents.clone(copy.schema)
            : this.contents;
        if (this.range)
            copy.range = this.range.slice();
        return copy;
    }
    /** Adds a value to the document. */
    add(value) {
        if (assertCollection(this.contents))
            this.contents.add(value);
    }
    /** Adds a value to the document. */
    addIn(path, value) {
        if (assertCollection(this.contents))
            this.contents.addIn(path, value);
    }
    /**
     * Create a new `Alias` node, ensuring that the target `node` has the required anchor.
     *
     * If `node` already has an anchor, `name` is ignored.
     * Otherwise, the `node.anchor` value will be set to `name`,
     * or if an anchor with that name is already present in the document,
     * `name` will be used as a prefix for a new unique anchor.
     * If `name` is undefined, the generated anchor will use 'a' as a prefix.
     */
    createAlias(node, name) {
        if (!node.anchor) {
            const prev = anchors.anchorNames(this);
            node.anchor =
                // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing
                !name || prev.has(name) ? anchors.findNewAnchor(name || 'a', prev) : name;
        }
        return new Alias.Alias(node.anchor);
    }
    createNode(value, replacer, options) {
        let _replacer = undefined;
        if (typeof replacer === 'function') {
            value = replacer.call({ '': value }, '', value);
            _replacer = replacer;
        }
        else if (Array.isArray(replacer)) {
            const keyToStr = (v) => typeof v === 'number' || v instanceof String || v instanceof Number;
            const asStr = replacer.filter(keyToStr).map(String);
            if (asStr.length > 0)
                replacer = replacer.concat(asStr);
            _replacer = replacer;
        }
        else if (options === undefined && replacer) {
            options = replacer;
            replacer = undefined;
        }
        const { aliasDuplicateObjects, anchorPrefix, flow, keepUndefined, onTagObj, tag } = options ?? {};
        const { onAnchor, setAnchors, sourceObjects } = anchors.createNodeAnchors(this, 
        // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing
        anchorPrefix || 'a');
        const ctx = {
            aliasDuplicateObjects: aliasDuplicateObjects ?? true,
            keepUndefined: keepUndefined ?? false,
            onAnchor,
            onTagObj,
            replacer: _replacer,
            schema: this.schema,
            sourceObjects
        };
        const node = createNode.createNode(value, tag, ctx);
        if (flow && identity.isCollection(node))
            node.flow = true;
        setAnchors();
        return node;
    }
    /**
     * Convert a key and a value into a `Pair` using the current schema,
     * recursively wrapping all values as `Scalar` or `Collection` nodes.
     */
    createPair(key, value, options = {}) {
        const k = this.createNode(key, null, options);
        const v = this.createNode(value, null, options);
        return new Pair.Pair(k, v);
    }
    /**
     * Removes a value from the document.
     * @returns `true` if the item was found and removed.
     */
    delete(key) {
        return assertCollection(this.contents) ? this.contents.delete(key) : false;
    }
    /**
     * Removes a value from the document.
     * @returns `true` if the item was found and removed.
     */
    deleteIn(path) {
        if (Collection.isEmptyPath(path)) {
            if (this.contents == null)
                return false;
            // @ts-expect-error Presumed impossible if Strict extends false
            this.contents = null;
            return true;
        }
        return assertCollection(this.contents)
            ? this.contents.deleteIn(path)
            : false;
    }
    /**
     * Returns item at `key`, or `undefined` if not found. By default unwraps
     * scalar values from their surrounding node; to disable set `keepScalar` to
     * `true` (collections are always returned intact).
     */
    get(key, keepScalar) {
        return identity.isCollection(this.contents)
            ? this.contents.get(key, keepScalar)
            : undefined;
    }
    /**
     * Returns item at `path`, or `undefined` if not found. By default unwraps
     * scalar values from their surrounding node; to disable set `keepScalar` to
     * `true` (collections are always returned intact).
     */
    getIn(path, keepScalar) {
        if (Collection.isEmptyPath(path))
            return !keepScalar && identity.isScalar(this.contents)
                ? this.contents.value
                : this.contents;
        return identity.isCollection(this.contents)
            ? this.contents.getIn(path, keepScalar)
            : undefined;
    }
    /**
     * Checks if the document includes a value with the key `key`.
     */
    has(key) {
        return identity.isCollection(this.contents) ? this.contents.has(key) : false;
    }
    /**
     * Checks if the document includes a value at `path`.
     */
    hasIn(path) {
        if (Collection.isEmptyPath(path))
            return this.contents !== undefined;
        return identity.isCollection(this.contents) ? this.contents.hasIn(path) : false;
    }
    /**
     * Sets a value in this document. For `!!set`, `value` needs to be a
     * boolean to add/remove the item from the set.
     */
    set(key, value) {
        if (this.contents == null) {
            // @ts-expect-error We can't really know that this matches Contents.
            this.contents = Collection.collectionFromPath(this.schema, [key], value);
        }
        else if (assertCollection(this.contents)) {
            this.contents.set(key, value);
        }
    }
    /**
     * Sets a value in this document. For `!!set`, `value` needs to be a
     * boolean to add/remove the item from the set.
     */
    setIn(path, value) {
        if (Collection.isEmptyPath(path)) {
            // @ts-expect-error We can't really know that this matches Contents.
            this.contents = value;
        }
        else if (this.contents == null) {
            // @ts-expect-error We can't really know that this matches Contents.
            this.contents = Collection.collectionFromPath(this.schema, Array.from(path), value);
        }
        else if (assertCollection(this.contents)) {
            this.contents.setIn(path, value);
        }
    }
    /**
     * Change the YAML version and schema used by the document.
     * A `null` version disables support for directives, explicit tags, anchors, and aliases.
     * It also requires the `schema` option to be given as a `Schema` instance value.
     *
     * Overrides all previously set schema options.
     */
    setSchema(version, options = {}) {
        if (typeof version === 'number')
            version = String(version);
        let opt;
        switch (version) {
            case '1.1':
                if (this.directives)
                    this.directives.yaml.version = '1.1';
                else
                    this.directives = new directives.Directives({ version: '1.1' });
                opt = { resolveKnownTags: false, schema: 'yaml-1.1' };
                break;
            case '1.2':
            case 'next':
                if (this.directives)
                    this.directives.yaml.version = version;
                else
                    this.directives = new directives.Directives({ version });
                opt = { resolveKnownTags: true, schema: 'core' };
                break;
            case null:
                if (this.directives)
                    delete this.directives;
                opt = null;
                break;
            default: {
                const sv = JSON.stringify(version);
                throw new Error(`Expected '1.1', '1.2' or null as first argument, but found: ${sv}`);
            }
        }
        // Not using `instanceof Schema` to allow for duck typing
        if (options.schema instanceof Object)
            this.schema = options.schema;
        else if (opt)
            this.schema = new Schema.Schema(Object.assign(opt, options));
        else
            throw new Error(`With a null YAML version, the { schema: Schema } option is required`);
    }
    // json & jsonArg are only used from toJSON()
    toJS({ json, jsonArg, mapAsMap, maxAliasCount, onAnchor, reviver } = {}) {
        const ctx = {
            anchors: new Map(),
            doc: this,
            keep: !json,
            mapAsMap: mapAsMap === true,
            mapKeyWarned: false,
            maxAliasCount: typeof maxAliasCount === 'number' ? maxAliasCount : 100
        };
        const res = toJS.toJS(this.contents, jsonArg ?? '', ctx);
        if (typeof onAnchor === 'function')
            for (const { count, res } of ctx.anchors.values())
                onAnchor(res, count);
        return typeof reviver === 'function'
            ? applyReviver.applyReviver(reviver, { '': res }, '', res)
            : res;
    }
    /**
     * A JSON representation of the document `contents`.
     *
     * @param jsonArg Used by `JSON.stringify` to indicate the array index or
     *   property name.
     */
    toJSON(jsonArg, onAnchor) {
        return this.toJS({ json: true, jsonArg, mapAsMap: false, onAnchor });
    }
    /** A YAML representation of the document. */
    toString(options = {}) {
        if (this.errors.length > 0)
            throw new Error('Document with errors cannot be stringified');
        if ('indent' in options &&
            (!Number.isInteger(options.indent) || Number(options.indent) <= 0)) {
            const s = JSON.stringify(options.indent);
            throw new Error(`"indent" option must be a positive integer, not ${s}`);
        }
        return stringifyDocument.stringifyDocument(this, options);
    }
}
function assertCollection(contents) {
    if (identity.isCollection(contents))
        return true;
    throw new Error('Expected a YAML collection as document contents');
}

exports.Document = Document;


/***/ }),

/***/ 1596:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var visit = __nccwpck_require__(204);

/**
 * Verify that the input string is a valid anchor.
 *
 * Will throw on errors.
 */
function anchorIsValid(anchor) {
    if (/[\x00-\x19\s,[\]{}]/.test(anchor)) {
        const sa = JSON.stringify(anchor);
        const msg = `Anchor must not contain whitespace or control characters: ${sa}`;
        throw new Error(msg);
    }
    return true;
}
function anchorNames(root) {
    const anchors = new Set();
    visit.visit(root, {
        Value(_key, node) {
            if (node.anchor)
                anchors.add(node.anchor);
        }
    });
    return anchors;
}
/** Find a new anchor name with the given `prefix` and a one-indexed suffix. */
function findNewAnchor(prefix, exclude) {
    for (let i = 1; true; ++i) {
        const name = `${prefix}${i}`;
        if (!exclude.has(name))
            return name;
    }
}
function createNodeAnchors(doc, prefix) {
    const aliasObjects = [];
    const sourceObjects = new Map();
    let prevAnchors = null;
    return {
        onAnchor: (source) => {
            aliasObjects.push(source);
            prevAnchors ?? (prevAnchors = anchorNames(doc));
            const anchor = findNewAnchor(prefix, prevAnchors);
            prevAnchors.add(anchor);
            return anchor;
        },
        /**
         * With circular references, the source node is only resolved after all
         * of its child nodes are. This is why anchors are set only after all of
         * the nodes have been created.
         */
        setAnchors: () => {
            for (const source of aliasObjects) {
                const ref = sourceObjects.get(source);
                if (typeof ref === 'object' &&
                    ref.anchor &&
                    (identity.isScalar(ref.node) || identity.isCollection(ref.node))) {
                    ref.node.anchor = ref.anchor;
                }
                else {
                    const error = new Error('Failed to resolve repeated object (this should not happen)');
                    error.source = source;
                    throw error;
                }
            }
        },
        sourceObjects
    };
}

exports.anchorIsValid = anchorIsValid;
exports.anchorNames = anchorNames;
exports.createNodeAnchors = createNodeAnchors;
exports.findNewAnchor = findNewAnchor;


/***/ }),

/***/ 3661:
/***/ ((__unused_webpack_module, exports) => {



/**
 * Applies the JSON.parse reviver algorithm as defined in the ECMA-262 spec,
 * in section 24.5.1.1 "Runtime Semantics: InternalizeJSONProperty" of the
 * 2021 edition: https://tc39.es/ecma262/#sec-json.parse
 *
 * Includes extensions for handling Map and Set objects.
 */
function applyReviver(reviver, obj, key, val) {
    if (val && typeof val === 'object') {
        if (Array.isArray(val)) {
            for (let i = 0, len = val.length; i < len; ++i) {
                const v0 = val[i];
                const v1 = applyReviver(reviver, val, String(i), v0);
                // eslint-disable-next-line @typescript-eslint/no-array-delete
                if (v1 === undefined)
                    delete val[i];
                else if (v1 !== v0)
                    val[i] = v1;
            }
        }
        else if (val instanceof Map) {
            for (const k of Array.from(val.keys())) {
                const v0 = val.get(k);
                const v1 = applyReviver(reviver, val, k, v0);
                if (v1 === undefined)
                    val.delete(k);
                else if (v1 !== v0)
                    val.set(k, v1);
            }
        }
        else if (val instanceof Set) {
            for (const v0 of Array.from(val)) {
                const v1 = applyReviver(reviver, val, v0, v0);
                if (v1 === undefined)
                    val.delete(v0);
                else if (v1 !== v0) {
                    val.delete(v0);
                    val.add(v1);
                }
            }
        }
        else {
            for (const [k, v0] of Object.entries(val)) {
                const v1 = applyReviver(reviver, val, k, v0);
                if (v1 === undefined)
                    delete val[k];
                else if (v1 !== v0)
                    val[k] = v1;
            }
        }
    }
    return reviver.call(obj, key, val);
}

exports.applyReviver = applyReviver;


/***/ }),

/***/ 2404:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Alias = __nccwpck_require__(4065);
var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);

const defaultTagPrefix = 'tag:yaml.org,2002:';
function findTagObject(value, tagName, tags) {
    if (tagName) {
        const match = tags.filter(t => t.tag === tagName);
        const tagObj = match.find(t => !t.format) ?? match[0];
        if (!tagObj)
            throw new Error(`Tag ${tagName} not found`);
        return tagObj;
    }
    return tags.find(t => t.identify?.(value) && !t.format);
}
function createNode(value, tagName, ctx) {
    if (identity.isDocument(value))
        value = value.contents;
    if (identity.isNode(value))
        return value;
    if (identity.isPair(value)) {
        const map = ctx.schema[identity.MAP].createNode?.(ctx.schema, null, ctx);
        map.items.push(value);
        return map;
    }
    if (value instanceof String ||
        value instanceof Number ||
        value instanceof Boolean ||
        (typeof BigInt !== 'undefined' && value instanceof BigInt) // not supported everywhere
    ) {
        // https://tc39.es/ecma262/#sec-serializejsonproperty
        value = value.valueOf();
    }
    const { aliasDuplicateObjects, onAnchor, onTagObj, schema, sourceObjects } = ctx;
    // Detect duplicate references to the same object & use Alias nodes for all
    // after first. The `ref` wrapper allows for circular references to resolve.
    let ref = undefined;
    if (aliasDuplicateObjects && value && typeof value === 'object') {
        ref = sourceObjects.get(value);
        if (ref) {
            ref.anchor ?? (ref.anchor = onAnchor(value));
            return new Alias.Alias(ref.anchor);
        }
        else {
            ref = { anchor: null, node: null };
            sourceObjects.set(value, ref);
        }
    }
    if (tagName?.startsWith('!!'))
        tagName = defaultTagPrefix + tagName.slice(2);
    let tagObj = findTagObject(value, tagName, schema.tags);
    if (!tagObj) {
        if (value && typeof value.toJSON === 'function') {
            // eslint-disable-next-line @typescript-eslint/no-unsafe-call
            value = value.toJSON();
        }
        if (!value || typeof value !== 'object') {
            const node = new Scalar.Scalar(value);
            if (ref)
                ref.node = node;
            return node;
        }
        tagObj =
            value instanceof Map
                ? schema[identity.MAP]
                : Symbol.iterator in Object(value)
                    ? schema[identity.SEQ]
                    : schema[identity.MAP];
    }
    if (onTagObj) {
        onTagObj(tagObj);
        delete ctx.onTagObj;
    }
    const node = tagObj?.createNode
        ? tagObj.createNode(ctx.schema, value, ctx)
        : typeof tagObj?.nodeClass?.from === 'function'
            ? tagObj.nodeClass.from(ctx.schema, value, ctx)
            : new Scalar.Scalar(value);
    if (tagName)
        node.tag = tagName;
    else if (!tagObj.default)
        node.tag = tagObj.tag;
    if (ref)
        ref.node = node;
    return node;
}

exports.createNode = createNode;


/***/ }),

/***/ 1342:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var visit = __nccwpck_require__(204);

const escapeChars = {
    '!': '%21',
    ',': '%2C',
    '[': '%5B',
    ']': '%5D',
    '{': '%7B',
    '}': '%7D'
};
const escapeTagName = (tn) => tn.replace(/[!,[\]{}]/g, ch => escapeChars[ch]);
class Directives {
    constructor(yaml, tags) {
        /**
         * The directives-end/doc-start marker `---`. If `null`, a marker may still be
         * included in the document's stringified representation.
         */
        this.docStart = null;
        /** The doc-end marker `...`.  */
        this.docEnd = false;
        this.yaml = Object.assign({}, Directives.defaultYaml, yaml);
        this.tags = Object.assign({}, Directives.defaultTags, tags);
    }
    clone() {
        const copy = new Directives(this.yaml, this.tags);
        copy.docStart = this.docStart;
        return copy;
    }
    /**
     * During parsing, get a Directives instance for the current document and
     * update the stream state according to the current version's spec.
     */
    atDocument() {
        const res = new Directives(this.yaml, this.tags);
        switch (this.yaml.version) {
            case '1.1':
                this.atNextDocument = true;
                break;
            case '1.2':
                this.atNextDocument = false;
                this.yaml = {
                    explicit: Directives.defaultYaml.explicit,
                    version: '1.2'
                };
                this.tags = Object.assign({}, Directives.defaultTags);
                break;
        }
        return res;
    }
    /**
     * @param onError - May be called even if the action was successful
     * @returns `true` on success
     */
    add(line, onError) {
        if (this.atNextDocument) {
            this.yaml = { explicit: Directives.defaultYaml.explicit, version: '1.1' };
            this.tags = Object.assign({}, Directives.defaultTags);
            this.atNextDocument = false;
        }
        const parts = line.trim().split(/[ \t]+/);
        const name = parts.shift();
        switch (name) {
            case '%TAG': {
                if (parts.length !== 2) {
                    onError(0, '%TAG directive should contain exactly two parts');
                    if (parts.length < 2)
                        return false;
                }
                const [handle, prefix] = parts;
                this.tags[handle] = prefix;
                return true;
            }
            case '%YAML': {
                this.yaml.explicit = true;
                if (parts.length !== 1) {
                    onError(0, '%YAML directive should contain exactly one part');
                    return false;
                }
                const [version] = parts;
                if (version === '1.1' || version === '1.2') {
                    this.yaml.version = version;
                    return true;
                }
                else {
                    const isValid = /^\d+\.\d+$/.test(version);
                    onError(6, `Unsupported YAML version ${version}`, isValid);
                    return false;
                }
            }
            default:
                onError(0, `Unknown directive ${name}`, true);
                return false;
        }
    }
    /**
     * Resolves a tag, matching handles to those defined in %TAG directives.
     *
     * @returns Resolved tag, which may also be the non-specific tag `'!'` or a
     *   `'!local'` tag, or `null` if unresolvable.
     */
    tagName(source, onError) {
        if (source === '!')
            return '!'; // non-specific tag
        if (source[0] !== '!') {
            onError(`Not a valid tag: ${source}`);
            return null;
        }
        if (source[1] === '<') {
            const verbatim = source.slice(2, -1);
            if (verbatim === '!' || verbatim === '!!') {
                onError(`Verbatim tags aren't resolved, so ${source} is invalid.`);
                return null;
            }
            if (source[source.length - 1] !== '>')
                onError('Verbatim tags must end with a >');
            return verbatim;
        }
        const [, handle, suffix] = source.match(/^(.*!)([^!]*)$/s);
        if (!suffix)
            onError(`The ${source} tag has no suffix`);
        const prefix = this.tags[handle];
        if (prefix) {
            try {
                return prefix + decodeURIComponent(suffix);
            }
            catch (error) {
                onError(String(error));
                return null;
            }
        }
        if (handle === '!')
            return source; // local tag
        onError(`Could not resolve tag: ${source}`);
        return null;
    }
    /**
     * Given a fully resolved tag, returns its printable string form,
     * taking into account current tag prefixes and defaults.
     */
    tagString(tag) {
        for (const [handle, prefix] of Object.entries(this.tags)) {
            if (tag.startsWith(prefix))
                return handle + escapeTagName(tag.substring(prefix.length));
        }
        return tag[0] === '!' ? tag : `!<${tag}>`;
    }
    toString(doc) {
        const lines = this.yaml.explicit
            ? [`%YAML ${this.yaml.version || '1.2'}`]
            : [];
        const tagEntries = Object.entries(this.tags);
        let tagNames;
        if (doc && tagEntries.length > 0 && identity.isNode(doc.contents)) {
            const tags = {};
            visit.visit(doc.contents, (_key, node) => {
                if (identity.isNode(node) && node.tag)
                    tags[node.tag] = true;
            });
            tagNames = Object.keys(tags);
        }
        else
            tagNames = [];
        for (const [handle, prefix] of tagEntries) {
            if (handle === '!!' && prefix === 'tag:yaml.org,2002:')
                continue;
            if (!doc || tagNames.some(tn => tn.startsWith(prefix)))
                lines.push(`%TAG ${handle} ${prefix}`);
        }
        return lines.join('\n');
    }
}
Directives.defaultYaml = { explicit: false, version: '1.2' };
Directives.defaultTags = { '!!': 'tag:yaml.org,2002:' };

exports.Directives = Directives;


/***/ }),

/***/ 1464:
/***/ ((__unused_webpack_module, exports) => {



class YAMLError extends Error {
    constructor(name, pos, code, message) {
        super();
        this.name = name;
        this.code = code;
        this.message = message;
        this.pos = pos;
    }
}
class YAMLParseError extends YAMLError {
    constructor(pos, code, message) {
        super('YAMLParseError', pos, code, message);
    }
}
class YAMLWarning extends YAMLError {
    constructor(pos, code, message) {
        super('YAMLWarning', pos, code, message);
    }
}
const prettifyError = (src, lc) => (error) => {
    if (error.pos[0] === -1)
        return;
    error.linePos = error.pos.map(pos => lc.linePos(pos));
    const { line, col } = error.linePos[0];
    error.message += ` at line ${line}, column ${col}`;
    let ci = col - 1;
    let lineStr = src
        .substring(lc.lineStarts[line - 1], lc.lineStarts[line])
        .replace(/[\n\r]+$/, '');
    // Trim to max 80 chars, keeping col position near the middle
    if (ci >= 60 && lineStr.length > 80) {
        const trimStart = Math.min(ci - 39, lineStr.length - 79);
        lineStr = '…' + lineStr.substring(trimStart);
        ci -= trimStart - 1;
    }
    if (lineStr.length > 80)
        lineStr = lineStr.substring(0, 79) + '…';
    // Include previous line in context if pointing at line start
    if (line > 1 && /^ *$/.test(lineStr.substring(0, ci))) {
        // Regexp won't match if start is trimmed
        let prev = src.substring(lc.lineStarts[line - 2], lc.lineStarts[line - 1]);
        if (prev.length > 80)
            prev = prev.substring(0, 79) + '…\n';
        lineStr = prev + lineStr;
    }
    if (/[^ ]/.test(lineStr)) {
        let count = 1;
        const end = error.linePos[1];
        if (end?.line === line && end.col > col) {
            count = Math.max(1, Math.min(end.col - col, 80 - ci));
        }
        const pointer = ' '.repeat(ci) + '^'.repeat(count);
        error.message += `:\n\n${lineStr}\n${pointer}\n`;
    }
};

exports.YAMLError = YAMLError;
exports.YAMLParseError = YAMLParseError;
exports.YAMLWarning = YAMLWarning;
exports.prettifyError = prettifyError;


/***/ }),

/***/ 8815:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {

var __webpack_unused_export__;


var composer = __nccwpck_require__(9984);
var Document = __nccwpck_require__(3021);
var Schema = __nccwpck_require__(5840);
var errors = __nccwpck_require__(1464);
var Alias = __nccwpck_require__(4065);
var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var Scalar = __nccwpck_require__(3301);
var YAMLMap = __nccwpck_require__(4454);
var YAMLSeq = __nccwpck_require__(2223);
var cst = __nccwpck_require__(3461);
var lexer = __nccwpck_require__(361);
var lineCounter = __nccwpck_require__(6628);
var parser = __nccwpck_require__(3456);
var publicApi = __nccwpck_require__(4047);
var visit = __nccwpck_require__(204);



__webpack_unused_export__ = composer.Composer;
__webpack_unused_export__ = Document.Document;
__webpack_unused_export__ = Schema.Schema;
__webpack_unused_export__ = errors.YAMLError;
__webpack_unused_export__ = errors.YAMLParseError;
__webpack_unused_export__ = errors.YAMLWarning;
__webpack_unused_export__ = Alias.Alias;
exports.Vj = identity.isAlias;
__webpack_unused_export__ = identity.isCollection;
__webpack_unused_export__ = identity.isDocument;
exports.jh = identity.isMap;
__webpack_unused_export__ = identity.isNode;
__webpack_unused_export__ = identity.isPair;
exports.jn = identity.isScalar;
exports.oP = identity.isSeq;
__webpack_unused_export__ = Pair.Pair;
__webpack_unused_export__ = Scalar.Scalar;
__webpack_unused_export__ = YAMLMap.YAMLMap;
__webpack_unused_export__ = YAMLSeq.YAMLSeq;
exports.DB = cst;
__webpack_unused_export__ = lexer.Lexer;
exports.HN = lineCounter.LineCounter;
exports.iX = parser.Parser;
__webpack_unused_export__ = publicApi.parse;
__webpack_unused_export__ = publicApi.parseAllDocuments;
exports.Tp = publicApi.parseDocument;
__webpack_unused_export__ = publicApi.stringify;
exports.YR = visit.visit;
__webpack_unused_export__ = visit.visitAsync;


/***/ }),

/***/ 7249:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var node_process = __nccwpck_require__(932);

function debug(logLevel, ...messages) {
    if (logLevel === 'debug')
        console.log(...messages);
}
function warn(logLevel, warning) {
    if (logLevel === 'debug' || logLevel === 'warn') {
        if (typeof node_process.emitWarning === 'function')
            node_process.emitWarning(warning);
        else
            console.warn(warning);
    }
}

exports.debug = debug;
exports.warn = warn;


/***/ }),

/***/ 4065:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var anchors = __nccwpck_require__(1596);
var visit = __nccwpck_require__(204);
var identity = __nccwpck_require__(1127);
var Node = __nccwpck_require__(6673);
var toJS = __nccwpck_require__(4043);

class Alias extends Node.NodeBase {
    constructor(source) {
        super(identity.ALIAS);
        this.source = source;
        Object.defineProperty(this, 'tag', {
            set() {
                throw new Error('Alias nodes cannot have tags');
            }
        });
    }
    /**
     * Resolve the value of this alias within `doc`, finding the last
     * instance of the `source` anchor before this node.
     */
    resolve(doc, ctx) {
        if (ctx?.maxAliasCount === 0)
            throw new ReferenceError('Alias resolution is disabled');
        let nodes;
        if (ctx?.aliasResolveCache) {
            nodes = ctx.aliasResolveCache;
        }
        else {
            nodes = [];
            visit.visit(doc, {
                Node: (_key, node) => {
                    if (identity.isAlias(node) || identity.hasAnchor(node))
                        nodes.push(node);
                }
            });
            if (ctx)
                ctx.aliasResolveCache = nodes;
        }
        let found = undefined;
        for (const node of nodes) {
            if (node === this)
                break;
            if (node.anchor === this.source)
                found = node;
        }
        if (found && ctx) {
            const { anchors, doc, maxAliasCount } = ctx;
            let data = anchors.get(found);
            if (!data) {
                // Resolve anchors for Node.prototype.toJS()
                toJS.toJS(found, null, ctx);
                data = anchors.get(found);
            }
            /* istanbul ignore if */
            if (data?.res === undefined) {
                const msg = 'This should not happen: Alias anchor was not resolved?';
                throw new ReferenceError(msg);
            }
            if (maxAliasCount >= 0) {
                data.count += 1;
                if (data.aliasCount === 0)
                    data.aliasCount = getAliasCount(doc, found, anchors);
                if (data.count * data.aliasCount > maxAliasCount) {
                    const msg = 'Excessive alias count indicates a resource exhaustion attack';
                    throw new ReferenceError(msg);
                }
            }
        }
        return found;
    }
    toJSON(_arg, ctx) {
        if (!ctx)
            return { source: this.source };
        const source = this.resolve(ctx.doc, ctx);
        if (!source) {
            const msg = `Unresolved alias (the anchor must be set before the alias): ${this.source}`;
            throw new ReferenceError(msg);
        }
        return ctx.anchors.get(source).res;
    }
    toString(ctx, _onComment, _onChompKeep) {
        const src = `*${this.source}`;
        if (ctx) {
            anchors.anchorIsValid(this.source);
            if (ctx.options.verifyAliasOrder && !ctx.anchors.has(this.source)) {
                const msg = `Unresolved alias (the anchor must be set before the alias): ${this.source}`;
                throw new Error(msg);
            }
            if (ctx.implicitKey)
                return `${src} `;
        }
        return src;
    }
}
function getAliasCount(doc, node, anchors) {
    if (identity.isAlias(node)) {
        const source = node.resolve(doc);
        const anchor = anchors && source && anchors.get(source);
        return anchor ? anchor.count * anchor.aliasCount : 0;
    }
    else if (identity.isCollection(node)) {
        let count = 0;
        for (const item of node.items) {
            const c = getAliasCount(doc, item, anchors);
            if (c > count)
                count = c;
        }
        return count;
    }
    else if (identity.isPair(node)) {
        const kc = getAliasCount(doc, node.key, anchors);
        const vc = getAliasCount(doc, node.value, anchors);
        return Math.max(kc, vc);
    }
    return 1;
}

exports.Alias = Alias;


/***/ }),

/***/ 101:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var createNode = __nccwpck_require__(2404);
var identity = __nccwpck_require__(1127);
var Node = __nccwpck_require__(6673);

function collectionFromPath(schema, path, value) {
    let v = value;
    for (let i = path.length - 1; i >= 0; --i) {
        const k = path[i];
        if (typeof k === 'number' && Number.isInteger(k) && k >= 0) {
            const a = [];
            a[k] = v;
            v = a;
        }
        else {
            v = new Map([[k, v]]);
        }
    }
    return createNode.createNode(v, undefined, {
        aliasDuplicateObjects: false,
        keepUndefined: false,
        onAnchor: () => {
            throw new Error('This should not happen, please report a bug.');
        },
        schema,
        sourceObjects: new Map()
    });
}
// Type guard is intentionally a little wrong so as to be more useful,
// as it does not cover untypable empty non-string iterables (e.g. []).
const isEmptyPath = (path) => path == null ||
    (typeof path === 'object' && !!path[Symbol.iterator]().next().done);
class Collection extends Node.NodeBase {
    constructor(type, schema) {
        super(type);
        Object.defineProperty(this, 'schema', {
            value: schema,
            configurable: true,
            enumerable: false,
            writable: true
        });
    }
    /**
     * Create a copy of this collection.
     *
     * @param schema - If defined, overwrites the original's schema
     */
    clone(schema) {
        const copy = Object.create(Object.getPrototypeOf(this), Object.getOwnPropertyDescriptors(this));
        if (schema)
            copy.schema = schema;
        copy.items = copy.items.map(it => identity.isNode(it) || identity.isPair(it) ? it.clone(schema) : it);
        if (this.range)
            copy.range = this.range.slice();
        return copy;
    }
    /**
     * Adds a value to the collection. For `!!map` and `!!omap` the value must
     * be a Pair instance or a `{ key, value }` object, which may not have a key
     * that already exists in the map.
     */
    addIn(path, value) {
        if (isEmptyPath(path))
            this.add(value);
        else {
            const [key, ...rest] = path;
            const node = this.get(key, true);
            if (identity.isCollection(node))
                node.addIn(rest, value);
            else if (node === undefined && this.schema)
                this.set(key, collectionFromPath(this.schema, rest, value));
            else
                throw new Error(`Expected YAML collection at ${key}. Remaining path: ${rest}`);
        }
    }
    /**
     * Removes a value from the collection.
     * @returns `true` if the item was found and removed.
     */
    deleteIn(path) {
        const [key, ...rest] = path;
        if (rest.length === 0)
            return this.delete(key);
        const node = this.get(key, true);
        if (identity.isCollection(node))
            return node.deleteIn(rest);
        else
            throw new Error(`Expected YAML collection at ${key}. Remaining path: ${rest}`);
    }
    /**
     * Returns item at `key`, or `undefined` if not found. By default unwraps
     * scalar values from their surrounding node; to disable set `keepScalar` to
     * `true` (collections are always returned intact).
     */
    getIn(path, keepScalar) {
        const [key, ...rest] = path;
        const node = this.get(key, true);
        if (rest.length === 0)
            return !keepScalar && identity.isScalar(node) ? node.value : node;
        else
            return identity.isCollection(node) ? node.getIn(rest, keepScalar) : undefined;
    }
    hasAllNullValues(allowScalar) {
        return this.items.every(node => {
            if (!identity.isPair(node))
                return false;
            const n = node.value;
            return (n == null ||
                (allowScalar &&
                    identity.isScalar(n) &&
                    n.value == null &&
                    !n.commentBefore &&
                    !n.comment &&
                    !n.tag));
        });
    }
    /**
     * Checks if the collection includes a value with the key `key`.
     */
    hasIn(path) {
        const [key, ...rest] = path;
        if (rest.length === 0)
            return this.has(key);
        const node = this.get(key, true);
        return identity.isCollection(node) ? node.hasIn(rest) : false;
    }
    /**
     * Sets a value in this collection. For `!!set`, `value` needs to be a
     * boolean to add/remove the item from the set.
     */
    setIn(path, value) {
        const [key, ...rest] = path;
        if (rest.length === 0) {
            this.set(key, value);
        }
        else {
            const node = this.get(key, true);
            if (identity.isCollection(node))
                node.setIn(rest, value);
            else if (node === undefined && this.schema)
                this.set(key, collectionFromPath(this.schema, rest, value));
            else
                throw new Error(`Expected YAML collection at ${key}. Remaining path: ${rest}`);
        }
    }
}

exports.Collection = Collection;
exports.collectionFromPath = collectionFromPath;
exports.isEmptyPath = isEmptyPath;


/***/ }),

/***/ 6673:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var applyReviver = __nccwpck_require__(3661);
var identity = __nccwpck_require__(1127);
var toJS = __nccwpck_require__(4043);

class NodeBase {
    constructor(type) {
        Object.defineProperty(this, identity.NODE_TYPE, { value: type });
    }
    /** Create a copy of this node.  */
    clone() {
        const copy = Object.create(Object.getPrototypeOf(this), Object.getOwnPropertyDescriptors(this));
        if (this.range)
            copy.range = this.range.slice();
        return copy;
    }
    /** A plain JavaScript representation of this node. */
    toJS(doc, { mapAsMap, maxAliasCount, onAnchor, reviver } = {}) {
        if (!identity.isDocument(doc))
            throw new TypeError('A document argument is required');
        const ctx = {
            anchors: new Map(),
            doc,
            keep: true,
            mapAsMap: mapAsMap === true,
            mapKeyWarned: false,
            maxAliasCount: typeof maxAliasCount === 'number' ? maxAliasCount : 100
        };
        const res = toJS.toJS(this, '', ctx);
        if (typeof onAnchor === 'function')
            for (const { count, res } of ctx.anchors.values())
                onAnchor(res, count);
        return typeof reviver === 'function'
            ? applyReviver.applyReviver(reviver, { '': res }, '', res)
            : res;
    }
}

exports.NodeBase = NodeBase;


/***/ }),

/***/ 7165:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var createNode = __nccwpck_require__(2404);
var stringifyPair = __nccwpck_require__(9748);
var addPairToJSMap = __nccwpck_require__(7104);
var identity = __nccwpck_require__(1127);

function createPair(key, value, ctx) {
    const k = createNode.createNode(key, undefined, ctx);
    const v = createNode.createNode(value, undefined, ctx);
    return new Pair(k, v);
}
class Pair {
    constructor(key, value = null) {
        Object.defineProperty(this, identity.NODE_TYPE, { value: identity.PAIR });
        this.key = key;
        this.value = value;
    }
    clone(schema) {
        let { key, value } = this;
        if (identity.isNode(key))
            key = key.clone(schema);
        if (identity.isNode(value))
            value = value.clone(schema);
        return new Pair(key, value);
    }
    toJSON(_, ctx) {
        const pair = ctx?.mapAsMap ? new Map() : {};
        return addPairToJSMap.addPairToJSMap(ctx, pair, this);
    }
    toString(ctx, onComment, onChompKeep) {
        return ctx?.doc
            ? stringifyPair.stringifyPair(this, ctx, onComment, onChompKeep)
            : JSON.stringify(this);
    }
}

exports.Pair = Pair;
exports.createPair = createPair;


/***/ }),

/***/ 3301:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Node = __nccwpck_require__(6673);
var toJS = __nccwpck_require__(4043);

const isScalarValue = (value) => !value || (typeof value !== 'function' && typeof value !== 'object');
class Scalar extends Node.NodeBase {
    constructor(value) {
        super(identity.SCALAR);
        this.value = value;
    }
    toJSON(arg, ctx) {
        return ctx?.keep ? this.value : toJS.toJS(this.value, arg, ctx);
    }
    toString() {
        return String(this.value);
    }
}
Scalar.BLOCK_FOLDED = 'BLOCK_FOLDED';
Scalar.BLOCK_LITERAL = 'BLOCK_LITERAL';
Scalar.PLAIN = 'PLAIN';
Scalar.QUOTE_DOUBLE = 'QUOTE_DOUBLE';
Scalar.QUOTE_SINGLE = 'QUOTE_SINGLE';

exports.Scalar = Scalar;
exports.isScalarValue = isScalarValue;


/***/ }),

/***/ 4454:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyCollection = __nccwpck_require__(1212);
var addPairToJSMap = __nccwpck_require__(7104);
var Collection = __nccwpck_require__(101);
var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var Scalar = __nccwpck_require__(3301);

function findPair(items, key) {
    const k = identity.isScalar(key) ? key.value : key;
    for (const it of items) {
        if (identity.isPair(it)) {
            if (it.key === key || it.key === k)
                return it;
            if (identity.isScalar(it.key) && it.key.value === k)
                return it;
        }
    }
    return undefined;
}
class YAMLMap extends Collection.Collection {
    static get tagName() {
        return 'tag:yaml.org,2002:map';
    }
    constructor(schema) {
        super(identity.MAP, schema);
        this.items = [];
    }
    /**
     * A generic collection parsing method that can be extended
     * to other node classes that inherit from YAMLMap
     */
    static from(schema, obj, ctx) {
        const { keepUndefined, replacer } = ctx;
        const map = new this(schema);
        const add = (key, value) => {
            if (typeof replacer === 'function')
                value = replacer.call(obj, key, value);
            else if (Array.isArray(replacer) && !replacer.includes(key))
                return;
            if (value !== undefined || keepUndefined)
                map.items.push(Pair.createPair(key, value, ctx));
        };
        if (obj instanceof Map) {
            for (const [key, value] of obj)
                add(key, value);
        }
        else if (obj && typeof obj === 'object') {
            for (const key of Object.keys(obj))
                add(key, obj[key]);
        }
        if (typeof schema.sortMapEntries === 'function') {
            map.items.sort(schema.sortMapEntries);
        }
        return map;
    }
    /**
     * Adds a value to the collection.
     *
     * @param overwrite - If not set `true`, using a key that is already in the
     *   collection will throw. Otherwise, overwrites the previous value.
     */
    add(pair, overwrite) {
        let _pair;
        if (identity.isPair(pair))
            _pair = pair;
        else if (!pair || typeof pair !== 'object' || !('key' in pair)) {
            // In TypeScript, this never happens.
            _pair = new Pair.Pair(pair, pair?.value);
        }
        else
            _pair = new Pair.Pair(pair.key, pair.value);
        const prev = findPair(this.items, _pair.key);
        const sortEntries = this.schema?.sortMapEntries;
        if (prev) {
            if (!overwrite)
                throw new Error(`Key ${_pair.key} already set`);
            // For scalars, keep the old node & its comments and anchors
            if (identity.isScalar(prev.value) && Scalar.isScalarValue(_pair.value))
                prev.value.value = _pair.value;
            else
                prev.value = _pair.value;
        }
        else if (sortEntries) {
            const i = this.items.findIndex(item => sortEntries(_pair, item) < 0);
            if (i === -1)
                this.items.push(_pair);
            else
                this.items.splice(i, 0, _pair);
        }
        else {
            this.items.push(_pair);
        }
    }
    delete(key) {
        const it = findPair(this.items, key);
        if (!it)
            return false;
        const del = this.items.splice(this.items.indexOf(it), 1);
        return del.length > 0;
    }
    get(key, keepScalar) {
        const it = findPair(this.items, key);
        const node = it?.value;
        return (!keepScalar && identity.isScalar(node) ? node.value : node) ?? undefined;
    }
    has(key) {
        return !!findPair(this.items, key);
    }
    set(key, value) {
        this.add(new Pair.Pair(key, value), true);
    }
    /**
     * @param ctx - Conversion context, originally set in Document#toJS()
     * @param {Class} Type - If set, forces the returned collection type
     * @returns Instance of Type, Map, or Object
     */
    toJSON(_, ctx, Type) {
        const map = Type ? new Type() : ctx?.mapAsMap ? new Map() : {};
        if (ctx?.onCreate)
            ctx.onCreate(map);
        for (const item of this.items)
            addPairToJSMap.addPairToJSMap(ctx, map, item);
        return map;
    }
    toString(ctx, onComment, onChompKeep) {
        if (!ctx)
            return JSON.stringify(this);
        for (const item of this.items) {
            if (!identity.isPair(item))
                throw new Error(`Map items must all be pairs; found ${JSON.stringify(item)} instead`);
        }
        if (!ctx.allNullValues && this.hasAllNullValues(false))
            ctx = Object.assign({}, ctx, { allNullValues: true });
        return stringifyCollection.stringifyCollection(this, ctx, {
            blockItemPrefix: '',
            flowChars: { start: '{', end: '}' },
            itemIndent: ctx.indent || '',
            onChompKeep,
            onComment
        });
    }
}

exports.YAMLMap = YAMLMap;
exports.findPair = findPair;


/***/ }),

/***/ 2223:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var createNode = __nccwpck_require__(2404);
var stringifyCollection = __nccwpck_require__(1212);
var Collection = __nccwpck_require__(101);
var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);
var toJS = __nccwpck_require__(4043);

class YAMLSeq extends Collection.Collection {
    static get tagName() {
        return 'tag:yaml.org,2002:seq';
    }
    constructor(schema) {
        super(identity.SEQ, schema);
        this.items = [];
    }
    add(value) {
        this.items.push(value);
    }
    /**
     * Removes a value from the collection.
     *
     * `key` must contain a representation of an integer for this to succeed.
     * It may be wrapped in a `Scalar`.
     *
     * @returns `true` if the item was found and removed.
     */
    delete(key) {
        const idx = asItemIndex(key);
        if (typeof idx !== 'number')
            return false;
        const del = this.items.splice(idx, 1);
        return del.length > 0;
    }
    get(key, keepScalar) {
        const idx = asItemIndex(key);
        if (typeof idx !== 'number')
            return undefined;
        const it = this.items[idx];
        return !keepScalar && identity.isScalar(it) ? it.value : it;
    }
    /**
     * Checks if the collection includes a value with the key `key`.
     *
     * `key` must contain a representation of an integer for this to succeed.
     * It may be wrapped in a `Scalar`.
     */
    has(key) {
        const idx = asItemIndex(key);
        return typeof idx === 'number' && idx < this.items.length;
    }
    /**
     * Sets a value in this collection. For `!!set`, `value` needs to be a
     * boolean to add/remove the item from the set.
     *
     * If `key` does not contain a representation of an integer, this will throw.
     * It may be wrapped in a `Scalar`.
     */
    set(key, value) {
        const idx = asItemIndex(key);
        if (typeof idx !== 'number')
            throw new Error(`Expected a valid index, not ${key}.`);
        const prev = this.items[idx];
        if (identity.isScalar(prev) && Scalar.isScalarValue(value))
            prev.value = value;
        else
            this.items[idx] = value;
    }
    toJSON(_, ctx) {
        const seq = [];
        if (ctx?.onCreate)
            ctx.onCreate(seq);
        let i = 0;
        for (const item of this.items)
            seq.push(toJS.toJS(item, String(i++), ctx));
        return seq;
    }
    toString(ctx, onComment, onChompKeep) {
        if (!ctx)
            return JSON.stringify(this);
        return stringifyCollection.stringifyCollection(this, ctx, {
            blockItemPrefix: '- ',
            flowChars: { start: '[', end: ']' },
            itemIndent: (ctx.indent || '') + '  ',
            onChompKeep,
            onComment
        });
    }
    static from(schema, obj, ctx) {
        const { replacer } = ctx;
        const seq = new this(schema);
        if (obj && Symbol.iterator in Object(obj)) {
            let i = 0;
            for (let it of obj) {
                if (typeof replacer === 'function') {
                    const key = obj instanceof Set ? it : String(i++);
                    it = replacer.call(obj, key, it);
                }
                seq.items.push(createNode.createNode(it, undefined, ctx));
            }
        }
        return seq;
    }
}
function asItemIndex(key) {
    let idx = identity.isScalar(key) ? key.value : key;
    if (idx && typeof idx === 'string')
        idx = Number(idx);
    return typeof idx === 'number' && Number.isInteger(idx) && idx >= 0
        ? idx
        : null;
}

exports.YAMLSeq = YAMLSeq;


/***/ }),

/***/ 7104:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var log = __nccwpck_require__(7249);
var merge = __nccwpck_require__(452);
var stringify = __nccwpck_require__(2148);
var identity = __nccwpck_require__(1127);
var toJS = __nccwpck_require__(4043);

function addPairToJSMap(ctx, map, { key, value }) {
    if (identity.isNode(key) && key.addToJSMap)
        key.addToJSMap(ctx, map, value);
    // TODO: Should drop this special case for bare << handling
    else if (merge.isMergeKey(ctx, key))
        merge.addMergeToJSMap(ctx, map, value);
    else {
        const jsKey = toJS.toJS(key, '', ctx);
        if (map instanceof Map) {
            map.set(jsKey, toJS.toJS(value, jsKey, ctx));
        }
        else if (map instanceof Set) {
            map.add(jsKey);
        }
        else {
            const stringKey = stringifyKey(key, jsKey, ctx);
            const jsValue = toJS.toJS(value, stringKey, ctx);
            if (stringKey in map)
                Object.defineProperty(map, stringKey, {
                    value: jsValue,
                    writable: true,
                    enumerable: true,
                    configurable: true
                });
            else
                map[stringKey] = jsValue;
        }
    }
    return map;
}
function stringifyKey(key, jsKey, ctx) {
    if (jsKey === null)
        return '';
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    if (typeof jsKey !== 'object')
        return String(jsKey);
    if (identity.isNode(key) && ctx?.doc) {
        const strCtx = stringify.createStringifyContext(ctx.doc, {});
        strCtx.anchors = new Set();
        for (const node of ctx.anchors.keys())
            strCtx.anchors.add(node.anchor);
        strCtx.inFlow = true;
        strCtx.inStringifyKey = true;
        const strKey = key.toString(strCtx);
        if (!ctx.mapKeyWarned) {
            let jsonStr = JSON.stringify(strKey);
            if (jsonStr.length > 40)
                jsonStr = jsonStr.substring(0, 36) + '..."';
            log.warn(ctx.doc.options.logLevel, `Keys with collection values will be stringified due to JS Object restrictions: ${jsonStr}. Set mapAsMap: true to use object keys.`);
            ctx.mapKeyWarned = true;
        }
        return strKey;
    }
    return JSON.stringify(jsKey);
}

exports.addPairToJSMap = addPairToJSMap;


/***/ }),

/***/ 1127:
/***/ ((__unused_webpack_module, exports) => {



const ALIAS = Symbol.for('yaml.alias');
const DOC = Symbol.for('yaml.document');
const MAP = Symbol.for('yaml.map');
const PAIR = Symbol.for('yaml.pair');
const SCALAR = Symbol.for('yaml.scalar');
const SEQ = Symbol.for('yaml.seq');
const NODE_TYPE = Symbol.for('yaml.node.type');
const isAlias = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === ALIAS;
const isDocument = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === DOC;
const isMap = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === MAP;
const isPair = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === PAIR;
const isScalar = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === SCALAR;
const isSeq = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === SEQ;
function isCollection(node) {
    if (node && typeof node === 'object')
        switch (node[NODE_TYPE]) {
            case MAP:
            case SEQ:
                return true;
        }
    return false;
}
function isNode(node) {
    if (node && typeof node === 'object')
        switch (node[NODE_TYPE]) {
            case ALIAS:
            case MAP:
            case SCALAR:
            case SEQ:
                return true;
        }
    return false;
}
const hasAnchor = (node) => (isScalar(node) || isCollection(node)) && !!node.anchor;

exports.ALIAS = ALIAS;
exports.DOC = DOC;
exports.MAP = MAP;
exports.NODE_TYPE = NODE_TYPE;
exports.PAIR = PAIR;
exports.SCALAR = SCALAR;
exports.SEQ = SEQ;
exports.hasAnchor = hasAnchor;
exports.isAlias = isAlias;
exports.isCollection = isCollection;
exports.isDocument = isDocument;
exports.isMap = isMap;
exports.isNode = isNode;
exports.isPair = isPair;
exports.isScalar = isScalar;
exports.isSeq = isSeq;


/***/ }),

/***/ 4043:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);

/**
 * Recursively convert any node or its contents to native JavaScript
 *
 * @param value - The input value
 * @param arg - If `value` defines a `toJSON()` method, use this
 *   as its first argument
 * @param ctx - Conversion context, originally set in Document#toJS(). If
 *   `{ keep: true }` is not set, output should be suitable for JSON
 *   stringification.
 */
function toJS(value, arg, ctx) {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return
    if (Array.isArray(value))
        return value.map((v, i) => toJS(v, String(i), ctx));
    if (value && typeof value.toJSON === 'function') {
        // eslint-disable-next-line @typescript-eslint/no-unsafe-call
        if (!ctx || !identity.hasAnchor(value))
            return value.toJSON(arg, ctx);
        const data = { aliasCount: 0, count: 1, res: undefined };
        ctx.anchors.set(value, data);
        ctx.onCreate = res => {
            data.res = res;
            delete ctx.onCreate;
        };
        const res = value.toJSON(arg, ctx);
        if (ctx.onCreate)
            ctx.onCreate(res);
        return res;
    }
    if (typeof value === 'bigint' && !ctx?.keep)
        return Number(value);
    return value;
}

exports.toJS = toJS;


/***/ }),

/***/ 110:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var resolveBlockScalar = __nccwpck_require__(8913);
var resolveFlowScalar = __nccwpck_require__(6842);
var errors = __nccwpck_require__(1464);
var stringifyString = __nccwpck_require__(3069);

function resolveAsScalar(token, strict = true, onError) {
    if (token) {
        const _onError = (pos, code, message) => {
            const offset = typeof pos === 'number' ? pos : Array.isArray(pos) ? pos[0] : pos.offset;
            if (onError)
                onError(offset, code, message);
            else
                throw new errors.YAMLParseError([offset, offset + 1], code, message);
        };
        switch (token.type) {
            case 'scalar':
            case 'single-quoted-scalar':
            case 'double-quoted-scalar':
                return resolveFlowScalar.resolveFlowScalar(token, strict, _onError);
            case 'block-scalar':
                return resolveBlockScalar.resolveBlockScalar({ options: { strict } }, token, _onError);
        }
    }
    return null;
}
/**
 * Create a new scalar token with `value`
 *
 * Values that represent an actual string but may be parsed as a different type should use a `type` other than `'PLAIN'`,
 * as this function does not support any schema operations and won't check for such conflicts.
 *
 * @param value The string representation of the value, which will have its content properly indented.
 * @param context.end Comments and whitespace after the end of the value, or after the block scalar header. If undefined, a newline will be added.
 * @param context.implicitKey Being within an implicit key may affect the resolved type of the token's value.
 * @param context.indent The indent level of the token.
 * @param context.inFlow Is this scalar within a flow collection? This may affect the resolved type of the token's value.
 * @param context.offset The offset position of the token.
 * @param context.type The preferred type of the scalar token. If undefined, the previous type of the `token` will be used, defaulting to `'PLAIN'`.
 */
function createScalarToken(value, context) {
    const { implicitKey = false, indent, inFlow = false, offset = -1, type = 'PLAIN' } = context;
    const source = stringifyString.stringifyString({ type, value }, {
        implicitKey,
        indent: indent > 0 ? ' '.repeat(indent) : '',
        inFlow,
        options: { blockQuote: true, lineWidth: -1 }
    });
    const end = context.end ?? [
        { type: 'newline', offset: -1, indent, source: '\n' }
    ];
    switch (source[0]) {
        case '|':
        case '>': {
            const he = source.indexOf('\n');
            const head = source.substring(0, he);
            const body = source.substring(he + 1) + '\n';
            const props = [
                { type: 'block-scalar-header', offset, indent, source: head }
            ];
            if (!addEndtoBlockProps(props, end))
                props.push({ type: 'newline', offset: -1, indent, source: '\n' });
            return { type: 'block-scalar', offset, indent, props, source: body };
        }
        case '"':
            return { type: 'double-quoted-scalar', offset, indent, source, end };
        case "'":
            return { type: 'single-quoted-scalar', offset, indent, source, end };
        default:
            return { type: 'scalar', offset, indent, source, end };
    }
}
/**
 * Set the value of `token` to the given string `value`, overwriting any previous contents and type that it may have.
 *
 * Best efforts are made to retain any comments previously associated with the `token`,
 * though all contents within a collection's `items` will be overwritten.
 *
 * Values that represent an actual string but may be parsed as a different type should use a `type` other than `'PLAIN'`,
 * as this function does not support any schema operations and won't check for such conflicts.
 *
 * @param token Any token. If it does not include an `indent` value, the value will be stringified as if it were an implicit key.
 * @param value The string representation of the value, which will have its content properly indented.
 * @param context.afterKey In most cases, values after a key should have an additional level of indentation.
 * @param context.implicitKey Being within an implicit key may affect the resolved type of the token's value.
 * @param context.inFlow Being within a flow collection may affect the resolved type of the token's value.
 * @param context.type The preferred type of the scalar token. If undefined, the previous type of the `token` will be used, defaulting to `'PLAIN'`.
 */
function setScalarValue(token, value, context = {}) {
    let { afterKey = false, implicitKey = false, inFlow = false, type } = context;
    let indent = 'indent' in token ? token.indent : null;
    if (afterKey && typeof indent === 'number')
        indent += 2;
    if (!type)
        switch (token.type) {
            case 'single-quoted-scalar':
                type = 'QUOTE_SINGLE';
                break;
            case 'double-quoted-scalar':
                type = 'QUOTE_DOUBLE';
                break;
            case 'block-scalar': {
                const header = token.props[0];
                if (header.type !== 'block-scalar-header')
                    throw new Error('Invalid block scalar header');
                type = header.source[0] === '>' ? 'BLOCK_FOLDED' : 'BLOCK_LITERAL';
                break;
            }
            default:
                type = 'PLAIN';
        }
    const source = stringifyString.stringifyString({ type, value }, {
        implicitKey: implicitKey || indent === null,
        indent: indent !== null && indent > 0 ? ' '.repeat(indent) : '',
        inFlow,
        options: { blockQuote: true, lineWidth: -1 }
    });
    switch (source[0]) {
        case '|':
        case '>':
            setBlockScalarValue(token, source);
            break;
        case '"':
            setFlowScalarValue(token, source, 'double-quoted-scalar');
            break;
        case "'":
            setFlowScalarValue(token, source, 'single-quoted-scalar');
            break;
        default:
            setFlowScalarValue(token, source, 'scalar');
    }
}
function setBlockScalarValue(token, source) {
    const he = source.indexOf('\n');
    const head = source.substring(0, he);
    const body = source.substring(he + 1) + '\n';
    if (token.type === 'block-scalar') {
        const header = token.props[0];
        if (header.type !== 'block-scalar-header')
            throw new Error('Invalid block scalar header');
        header.source = head;
        token.source = body;
    }
    else {
        const { offset } = token;
        const indent = 'indent' in token ? token.indent : -1;
        const props = [
            { type: 'block-scalar-header', offset, indent, source: head }
        ];
        if (!addEndtoBlockProps(props, 'end' in token ? token.end : undefined))
            props.push({ type: 'newline', offset: -1, indent, source: '\n' });
        for (const key of Object.keys(token))
            if (key !== 'type' && key !== 'offset')
                delete token[key];
        Object.assign(token, { type: 'block-scalar', indent, props, source: body });
    }
}
/** @returns `true` if last token is a newline */
function addEndtoBlockProps(props, end) {
    if (end)
        for (const st of end)
            switch (st.type) {
                case 'space':
                case 'comment':
                    props.push(st);
                    break;
                case 'newline':
                    props.push(st);
                    return true;
            }
    return false;
}
function setFlowScalarValue(token, source, type) {
    switch (token.type) {
        case 'scalar':
        case 'double-quoted-scalar':
        case 'single-quoted-scalar':
            token.type = type;
            token.source = source;
            break;
        case 'block-scalar': {
            const end = token.props.slice(1);
            let oa = source.length;
            if (token.props[0].type === 'block-scalar-header')
                oa -= token.props[0].source.length;
            for (const tok of end)
                tok.offset += oa;
            delete token.props;
            Object.assign(token, { type, source, end });
            break;
        }
        case 'block-map':
        case 'block-seq': {
            const offset = token.offset + source.length;
            const nl = { type: 'newline', offset, indent: token.indent, source: '\n' };
            delete token.items;
            Object.assign(token, { type, source, end: [nl] });
            break;
        }
        default: {
            const indent = 'indent' in token ? token.indent : -1;
            const end = 'end' in token && Array.isArray(token.end)
                ? token.end.filter(st => st.type === 'space' ||
                    st.type === 'comment' ||
                    st.type === 'newline')
                : [];
            for (const key of Object.keys(token))
                if (key !== 'type' && key !== 'offset')
                    delete token[key];
            Object.assign(token, { type, indent, source, end });
        }
    }
}

exports.createScalarToken = createScalarToken;
exports.resolveAsScalar = resolveAsScalar;
exports.setScalarValue = setScalarValue;


/***/ }),

/***/ 1733:
/***/ ((__unused_webpack_module, exports) => {



/**
 * Stringify a CST document, token, or collection item
 *
 * Fair warning: This applies no validation whatsoever, and
 * simply concatenates the sources in their logical order.
 */
const stringify = (cst) => 'type' in cst ? stringifyToken(cst) : stringifyItem(cst);
function stringifyToken(token) {
    switch (token.type) {
        case 'block-scalar': {
            let res = '';
            for (const tok of token.props)
                res += stringifyToken(tok);
            return res + token.source;
        }
        case 'block-map':
        case 'block-seq': {
            let res = '';
            for (const item of token.items)
                res += stringifyItem(item);
            return res;
        }
        case 'flow-collection': {
            let res = token.start.source;
            for (const item of token.items)
                res += stringifyItem(item);
            for (const st of token.end)
                res += st.source;
            return res;
        }
        case 'document': {
            let res = stringifyItem(token);
            if (token.end)
                for (const st of token.end)
                    res += st.source;
            return res;
        }
        default: {
            let res = token.source;
            if ('end' in token && token.end)
                for (const st of token.end)
                    res += st.source;
            return res;
        }
    }
}
function stringifyItem({ start, key, sep, value }) {
    let res = '';
    for (const st of start)
        res += st.source;
    if (key)
        res += stringifyToken(key);
    if (sep)
        for (const st of sep)
            res += st.source;
    if (value)
        res += stringifyToken(value);
    return res;
}

exports.stringify = stringify;


/***/ }),

/***/ 7715:
/***/ ((__unused_webpack_module, exports) => {



const BREAK = Symbol('break visit');
const SKIP = Symbol('skip children');
const REMOVE = Symbol('remove item');
/**
 * Apply a visitor to a CST document or item.
 *
 * Walks through the tree (depth-first) starting from the root, calling a
 * `visitor` function with two arguments when entering each item:
 *   - `item`: The current item, which included the following members:
 *     - `start: SourceToken[]` – Source tokens before the key or value,
 *       possibly including its anchor or tag.
 *     - `key?: Token | null` – Set for pair values. May then be `null`, if
 *       the key before the `:` separator is empty.
 *     - `sep?: SourceToken[]` – Source tokens between the key and the value,
 *       which should include the `:` map value indicator if `value` is set.
 *     - `value?: Token` – The value of a sequence item, or of a map pair.
 *   - `path`: The steps from the root to the current node, as an array of
 *     `['key' | 'value', number]` tuples.
 *
 * The return value of the visitor may be used to control the traversal:
 *   - `undefined` (default): Do nothing and continue
 *   - `visit.SKIP`: Do not visit the children of this token, continue with
 *      next sibling
 *   - `visit.BREAK`: Terminate traversal completely
 *   - `visit.REMOVE`: Remove the current item, then continue with the next one
 *   - `number`: Set the index of the next step. This is useful especially if
 *     the index of the current token has changed.
 *   - `function`: Define the next visitor for this item. After the original
 *     visitor is called on item entry, next visitors are called after handling
 *     a non-empty `key` and when exiting the item.
 */
function visit(cst, visitor) {
    if ('type' in cst && cst.type === 'document')
        cst = { start: cst.start, value: cst.value };
    _visit(Object.freeze([]), cst, visitor);
}
// Without the `as symbol` casts, TS declares these in the `visit`
// namespace using `var`, but then complains about that because
// `unique symbol` must be `const`.
/** Terminate visit traversal completely */
visit.BREAK = BREAK;
/** Do not visit the children of the current item */
visit.SKIP = SKIP;
/** Remove the current item */
visit.REMOVE = REMOVE;
/** Find the item at `path` from `cst` as the root */
visit.itemAtPath = (cst, path) => {
    let item = cst;
    for (const [field, index] of path) {
        const tok = item?.[field];
        if (tok && 'items' in tok) {
            item = tok.items[index];
        }
        else
            return undefined;
    }
    return item;
};
/**
 * Get the immediate parent collection of the item at `path` from `cst` as the root.
 *
 * Throws an error if the collection is not found, which should never happen if the item itself exists.
 */
visit.parentCollection = (cst, path) => {
    const parent = visit.itemAtPath(cst, path.slice(0, -1));
    const field = path[path.length - 1][0];
    const coll = parent?.[field];
    if (coll && 'items' in coll)
        return coll;
    throw new Error('Parent collection not found');
};
function _visit(path, item, visitor) {
    let ctrl = visitor(item, path);
    if (typeof ctrl === 'symbol')
        return ctrl;
    for (const field of ['key', 'value']) {
        const token = item[field];
        if (token && 'items' in token) {
            for (let i = 0; i < token.items.length; ++i) {
                const ci = _visit(Object.freeze(path.concat([[field, i]])), token.items[i], visitor);
                if (typeof ci === 'number')
                    i = ci - 1;
                else if (ci === BREAK)
                    return BREAK;
                else if (ci === REMOVE) {
                    token.items.splice(i, 1);
                    i -= 1;
                }
            }
            if (typeof ctrl === 'function' && field === 'key')
                ctrl = ctrl(item, path);
        }
    }
    return typeof ctrl === 'function' ? ctrl(item, path) : ctrl;
}

exports.visit = visit;


/***/ }),

/***/ 3461:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var cstScalar = __nccwpck_require__(110);
var cstStringify = __nccwpck_require__(1733);
var cstVisit = __nccwpck_require__(7715);

/** The byte order mark */
const BOM = '\u{FEFF}';
/** Start of doc-mode */
const DOCUMENT = '\x02'; // C0: Start of Text
/** Unexpected end of flow-mode */
const FLOW_END = '\x18'; // C0: Cancel
/** Next token is a scalar value */
const SCALAR = '\x1f'; // C0: Unit Separator
/** @returns `true` if `token` is a flow or block collection */
const isCollection = (token) => !!token && 'items' in token;
/** @returns `true` if `token` is a flow or block scalar; not an alias */
const isScalar = (token) => !!token &&
    (token.type === 'scalar' ||
        token.type === 'single-quoted-scalar' ||
        token.type === 'double-quoted-scalar' ||
        token.type === 'block-scalar');
/* istanbul ignore next */
/** Get a printable representation of a lexer token */
function prettyToken(token) {
    switch (token) {
        case BOM:
            return '<BOM>';
        case DOCUMENT:
            return '<DOC>';
        case FLOW_END:
            return '<FLOW_END>';
        case SCALAR:
            return '<SCALAR>';
        default:
            return JSON.stringify(token);
    }
}
/** Identify the type of a lexer token. May return `null` for unknown tokens. */
function tokenType(source) {
    switch (source) {
        case BOM:
            return 'byte-order-mark';
        case DOCUMENT:
            return 'doc-mode';
        case FLOW_END:
            return 'flow-error-end';
        case SCALAR:
            return 'scalar';
        case '---':
            return 'doc-start';
        case '...':
            return 'doc-end';
        case '':
        case '\n':
        case '\r\n':
            return 'newline';
        case '-':
            return 'seq-item-ind';
        case '?':
            return 'explicit-key-ind';
        case ':':
            return 'map-value-ind';
        case '{':
            return 'flow-map-start';
        case '}':
            return 'flow-map-end';
        case '[':
            return 'flow-seq-start';
        case ']':
            return 'flow-seq-end';
        case ',':
            return 'comma';
    }
    switch (source[0]) {
        case ' ':
        case '\t':
            return 'space';
        case '#':
            return 'comment';
        case '%':
            return 'directive-line';
        case '*':
            return 'alias';
        case '&':
            return 'anchor';
        case '!':
            return 'tag';
        case "'":
            return 'single-quoted-scalar';
        case '"':
            return 'double-quoted-scalar';
        case '|':
        case '>':
            return 'block-scalar-header';
    }
    return null;
}

exports.createScalarToken = cstScalar.createScalarToken;
exports.resolveAsScalar = cstScalar.resolveAsScalar;
exports.setScalarValue = cstScalar.setScalarValue;
exports.stringify = cstStringify.stringify;
exports.visit = cstVisit.visit;
exports.BOM = BOM;
exports.DOCUMENT = DOCUMENT;
exports.FLOW_END = FLOW_END;
exports.SCALAR = SCALAR;
exports.isCollection = isCollection;
exports.isScalar = isScalar;
exports.prettyToken = prettyToken;
exports.tokenType = tokenType;


/***/ }),

/***/ 361:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var cst = __nccwpck_require__(3461);

/*
START -> stream

stream
  directive -> line-end -> stream
  indent + line-end -> stream
  [else] -> line-start

line-end
  comment -> line-end
  newline -> .
  input-end -> END

line-start
  doc-start -> doc
  doc-end -> stream
  [else] -> indent -> block-start

block-start
  seq-item-start -> block-start
  explicit-key-start -> block-start
  map-value-start -> block-start
  [else] -> doc

doc
  line-end -> line-start
  spaces -> doc
  anchor -> doc
  tag -> doc
  flow-start -> flow -> doc
  flow-end -> error -> doc
  seq-item-start -> error -> doc
  explicit-key-start -> error -> doc
  map-value-start -> doc
  alias -> doc
  quote-start -> quoted-scalar -> doc
  block-scalar-header -> line-end -> block-scalar(min) -> line-start
  [else] -> plain-scalar(false, min) -> doc

flow
  line-end -> flow
  spaces -> flow
  anchor -> flow
  tag -> flow
  flow-start -> flow -> flow
  flow-end -> .
  seq-item-start -> error -> flow
  explicit-key-start -> flow
  map-value-start -> flow
  alias -> flow
  quote-start -> quoted-scalar -> flow
  comma -> flow
  [else] -> plain-scalar(true, 0) -> flow

quoted-scalar
  quote-end -> .
  [else] -> quoted-scalar

block-scalar(min)
  newline + peek(indent < min) -> .
  [else] -> block-scalar(min)

plain-scalar(is-flow, min)
  scalar-end(is-flow) -> .
  peek(newline + (indent < min)) -> .
  [else] -> plain-scalar(min)
*/
function isEmpty(ch) {
    switch (ch) {
        case undefined:
        case ' ':
        case '\n':
        case '\r':
        case '\t':
            return true;
        default:
            return false;
    }
}
const hexDigits = new Set('0123456789ABCDEFabcdef');
const tagChars = new Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-#;/?:@&=+$_.!~*'()");
const flowIndicatorChars = new Set(',[]{}');
const invalidAnchorChars = new Set(' ,[]{}\n\r\t');
const isNotAnchorChar = (ch) => !ch || invalidAnchorChars.has(ch);
/**
 * Splits an input string into lexical tokens, i.e. smaller strings that are
 * easily identifiable by `tokens.tokenType()`.
 *
 * Lexing starts always in a "stream" context. Incomplete input may be buffered
 * until a complete token can be emitted.
 *
 * In addition to slices of the original input, the following control characters
 * may also be emitted:
 *
 * - `\x02` (Start of Text): A document starts with the next token
 * - `\x18` (Cancel): Unexpected end of flow-mode (indicates an error)
 * - `\x1f` (Unit Separator): Next token is a scalar value
 * - `\u{FEFF}` (Byte order mark): Emitted separately outside documents
 */
class Lexer {
    constructor() {
        /**
         * Flag indicating whether the end of the current buffer marks the end of
         * all input
         */
        this.atEnd = false;
        /**
         * Explicit indent set in block scalar header, as an offset from the current
         * minimum indent, so e.g. set to 1 from a header `|2+`. Set to -1 if not
         * explicitly set.
         */
        this.blockScalarIndent = -1;
        /**
         * Block scalars that include a + (keep) chomping indicator in their header
         * include trailing empty lines, which are otherwise excluded from the
         * scalar's contents.
         */
        this.blockScalarKeep = false;
        /** Current input */
        this.buffer = '';
        /**
         * Flag noting whether the map value indicator : can immediately follow this
         * node within a flow context.
         */
        this.flowKey = false;
        /** Count of surrounding flow collection levels. */
        this.flowLevel = 0;
        /**
         * Minimum level of indentation required for next lines to be parsed as a
         * part of the current scalar value.
         */
        this.indentNext = 0;
        /** Indentation level of the current line. */
        this.indentValue = 0;
        /** Position of the next \n character. */
        this.lineEndPos = null;
        /** Stores the state of the lexer if reaching the end of incpomplete input */
        this.next = null;
        /** A pointer to `buffer`; the current position of the lexer. */
        this.pos = 0;
    }
    /**
     * Generate YAML tokens from the `source` string. If `incomplete`,
     * a part of the last line may be left as a buffer for the next call.
     *
     * @returns A generator of lexical tokens
     */
    *lex(source, incomplete = false) {
        if (source) {
            if (typeof source !== 'string')
                throw TypeError('source is not a string');
            this.buffer = this.buffer ? this.buffer + source : source;
            this.lineEndPos = null;
        }
        this.atEnd = !incomplete;
        let next = this.next ?? 'stream';
        while (next && (incomplete || this.hasChars(1)))
            next = yield* this.parseNext(next);
    }
    atLineEnd() {
        let i = this.pos;
        let ch = this.buffer[i];
        while (ch === ' ' || ch === '\t')
            ch = this.buffer[++i];
        if (!ch || ch === '#' || ch === '\n')
            return true;
        if (ch === '\r')
            return this.buffer[i + 1] === '\n';
        return false;
    }
    charAt(n) {
        return this.buffer[this.pos + n];
    }
    continueScalar(offset) {
        let ch = this.buffer[offset];
        if (this.indentNext > 0) {
            let indent = 0;
            while (ch === ' ')
                ch = this.buffer[++indent + offset];
            if (ch === '\r') {
                const next = this.buffer[indent + offset + 1];
                if (next === '\n' || (!next && !this.atEnd))
                    return offset + indent + 1;
            }
            return ch === '\n' || indent >= this.indentNext || (!ch && !this.atEnd)
                ? offset + indent
                : -1;
        }
        if (ch === '-' || ch === '.') {
            const dt = this.buffer.substr(offset, 3);
            if ((dt === '---' || dt === '...') && isEmpty(this.buffer[offset + 3]))
                return -1;
        }
        return offset;
    }
    getLine() {
        let end = this.lineEndPos;
        if (typeof end !== 'number' || (end !== -1 && end < this.pos)) {
            end = this.buffer.indexOf('\n', this.pos);
            this.lineEndPos = end;
        }
        if (end === -1)
            return this.atEnd ? this.buffer.substring(this.pos) : null;
        if (this.buffer[end - 1] === '\r')
            end -= 1;
        return this.buffer.substring(this.pos, end);
    }
    hasChars(n) {
        return this.pos + n <= this.buffer.length;
    }
    setNext(state) {
        this.buffer = this.buffer.substring(this.pos);
        this.pos = 0;
        this.lineEndPos = null;
        this.next = state;
        return null;
    }
    peek(n) {
        return this.buffer.substr(this.pos, n);
    }
    *parseNext(next) {
        switch (next) {
            case 'stream':
                return yield* this.parseStream();
            case 'line-start':
                return yield* this.parseLineStart();
            case 'block-start':
                return yield* this.parseBlockStart();
            case 'doc':
                return yield* this.parseDocument();
            case 'flow':
                return yield* this.parseFlowCollection();
            case 'quoted-scalar':
                return yield* this.parseQuotedScalar();
            case 'block-scalar':
                return yield* this.parseBlockScalar();
            case 'plain-scalar':
                return yield* this.parsePlainScalar();
        }
    }
    *parseStream() {
        let line = this.getLine();
        if (line === null)
            return this.setNext('stream');
        if (line[0] === cst.BOM) {
            yield* this.pushCount(1);
            line = line.substring(1);
        }
        if (line[0] === '%') {
            let dirEnd = line.length;
            let cs = line.indexOf('#');
            while (cs !== -1) {
                const ch = line[cs - 1];
                if (ch === ' ' || ch === '\t') {
                    dirEnd = cs - 1;
                    break;
                }
                else {
                    cs = line.indexOf('#', cs + 1);
                }
            }
            while (true) {
                const ch = line[dirEnd - 1];
                if (ch === ' ' || ch === '\t')
                    dirEnd -= 1;
                else
                    break;
            }
            const n = (yield* this.pushCount(dirEnd)) + (yield* this.pushSpaces(true));
            yield* this.pushCount(line.length - n); // possible comment
            this.pushNewline();
            return 'stream';
        }
        if (this.atLineEnd()) {
            const sp = yield* this.pushSpaces(true);
            yield* this.pushCount(line.length - sp);
            yield* this.pushNewline();
            return 'stream';
        }
        yield cst.DOCUMENT;
        return yield* this.parseLineStart();
    }
    *parseLineStart() {
        const ch = this.charAt(0);
        if (!ch && !this.atEnd)
            return this.setNext('line-start');
        if (ch === '-' || ch === '.') {
            if (!this.atEnd && !this.hasChars(4))
                return this.setNext('line-start');
            const s = this.peek(3);
            if ((s === '---' || s === '...') && isEmpty(this.charAt(3))) {
                yield* this.pushCount(3);
                this.indentValue = 0;
                this.indentNext = 0;
                return s === '---' ? 'doc' : 'stream';
            }
        }
        this.indentValue = yield* this.pushSpaces(false);
        if (this.indentNext > this.indentValue && !isEmpty(this.charAt(1)))
            this.indentNext = this.indentValue;
        return yield* this.parseBlockStart();
    }
    *parseBlockStart() {
        const [ch0, ch1] = this.peek(2);
        if (!ch1 && !this.atEnd)
            return this.setNext('block-start');
        if ((ch0 === '-' || ch0 === '?' || ch0 === ':') && isEmpty(ch1)) {
            const n = (yield* this.pushCount(1)) + (yield* this.pushSpaces(true));
            this.indentNext = this.indentValue + 1;
            this.indentValue += n;
            return 'block-start';
        }
        return 'doc';
    }
    *parseDocument() {
        yield* this.pushSpaces(true);
        const line = this.getLine();
        if (line === null)
            return this.setNext('doc');
        let n = yield* this.pushIndicators();
        switch (line[n]) {
            case '#':
                yield* this.pushCount(line.length - n);
            // fallthrough
            case undefined:
                yield* this.pushNewline();
                return yield* this.parseLineStart();
            case '{':
            case '[':
                yield* this.pushCount(1);
                this.flowKey = false;
                this.flowLevel = 1;
                return 'flow';
            case '}':
            case ']':
                // this is an error
                yield* this.pushCount(1);
                return 'doc';
            case '*':
                yield* this.pushUntil(isNotAnchorChar);
                return 'doc';
            case '"':
            case "'":
                return yield* this.parseQuotedScalar();
            case '|':
            case '>':
                n += yield* this.parseBlockScalarHeader();
                n += yield* this.pushSpaces(true);
                yield* this.pushCount(line.length - n);
                yield* this.pushNewline();
                return yield* this.parseBlockScalar();
            default:
                return yield* this.parsePlainScalar();
        }
    }
    *parseFlowCollection() {
        let nl, sp;
        let indent = -1;
        do {
            nl = yield* this.pushNewline();
            if (nl > 0) {
                sp = yield* this.pushSpaces(false);
                this.indentValue = indent = sp;
            }
            else {
                sp = 0;
            }
            sp += yield* this.pushSpaces(true);
        } while (nl + sp > 0);
        const line = this.getLine();
        if (line === null)
            return this.setNext('flow');
        if ((indent !== -1 && indent < this.indentNext && line[0] !== '#') ||
            (indent === 0 &&
                (line.startsWith('---') || line.startsWith('...')) &&
                isEmpty(line[3]))) {
            // Allowing for the terminal ] or } at the same (rather than greater)
            // indent level as the initial [ or { is technically invalid, but
            // failing here would be surprising to users.
            const atFlowEndMarker = indent === this.indentNext - 1 &&
                this.flowLevel === 1 &&
                (line[0] === ']' || line[0] === '}');
            if (!atFlowEndMarker) {
                // this is an error
                this.flowLevel = 0;
                yield cst.FLOW_END;
                return yield* this.parseLineStart();
            }
        }
        let n = 0;
        while (line[n] === ',') {
            n += yield* this.pushCount(1);
            n += yield* this.pushSpaces(true);
            this.flowKey = false;
        }
        n += yield* this.pushIndicators();
        switch (line[n]) {
            case undefined:
                return 'flow';
            case '#':
                yield* this.pushCount(line.length - n);
                return 'flow';
            case '{':
            case '[':
                yield* this.pushCount(1);
                this.flowKey = false;
                this.flowLevel += 1;
                return 'flow';
            case '}':
            case ']':
                yield* this.pushCount(1);
                this.flowKey = true;
                this.flowLevel -= 1;
                return this.flowLevel ? 'flow' : 'doc';
            case '*':
                yield* this.pushUntil(isNotAnchorChar);
                return 'flow';
            case '"':
            case "'":
                this.flowKey = true;
                return yield* this.parseQuotedScalar();
            case ':': {
                const next = this.charAt(1);
                if (this.flowKey || isEmpty(next) || next === ',') {
                    this.flowKey = false;
                    yield* this.pushCount(1);
                    yield* this.pushSpaces(true);
                    return 'flow';
                }
            }
            // fallthrough
            default:
                this.flowKey = false;
                return yield* this.parsePlainScalar();
        }
    }
    *parseQuotedScalar() {
        const quote = this.charAt(0);
        let end = this.buffer.indexOf(quote, this.pos + 1);
        if (quote === "'") {
            while (end !== -1 && this.buffer[end + 1] === "'")
                end = this.buffer.indexOf("'", end + 2);
        }
        else {
            // double-quote
            while (end !== -1) {
                let n = 0;
                while (this.buffer[end - 1 - n] === '\\')
                    n += 1;
                if (n % 2 === 0)
                    break;
                end = this.buffer.indexOf('"', end + 1);
            }
        }
        // Only looking for newlines within the quotes
        const qb = this.buffer.substring(0, end);
        let nl = qb.indexOf('\n', this.pos);
        if (nl !== -1) {
            while (nl !== -1) {
                const cs = this.continueScalar(nl + 1);
                if (cs === -1)
                    break;
                nl = qb.indexOf('\n', cs);
            }
            if (nl !== -1) {
                // this is an error caused by an unexpected unindent
                end = nl - (qb[nl - 1] === '\r' ? 2 : 1);
            }
        }
        if (end === -1) {
            if (!this.atEnd)
                return this.setNext('quoted-scalar');
            end = this.buffer.length;
        }
        yield* this.pushToIndex(end + 1, false);
        return this.flowLevel ? 'flow' : 'doc';
    }
    *parseBlockScalarHeader() {
        this.blockScalarIndent = -1;
        this.blockScalarKeep = false;
        let i = this.pos;
        while (true) {
            const ch = this.buffer[++i];
            if (ch === '+')
                this.blockScalarKeep = true;
            else if (ch > '0' && ch <= '9')
                this.blockScalarIndent = Number(ch) - 1;
            else if (ch !== '-')
                break;
        }
        return yield* this.pushUntil(ch => isEmpty(ch) || ch === '#');
    }
    *parseBlockScalar() {
        let nl = this.pos - 1; // may be -1 if this.pos === 0
        let indent = 0;
        let ch;
        loop: for (let i = this.pos; (ch = this.buffer[i]); ++i) {
            switch (ch) {
                case ' ':
                    indent += 1;
                    break;
                case '\n':
                    nl = i;
                    indent = 0;
                    break;
                case '\r': {
                    const next = this.buffer[i + 1];
                    if (!next && !this.atEnd)
                        return this.setNext('block-scalar');
                    if (next === '\n')
                        break;
                } // fallthrough
                default:
                    break loop;
            }
        }
        if (!ch && !this.atEnd)
            return this.setNext('block-scalar');
        if (indent >= this.indentNext) {
            if (this.blockScalarIndent === -1)
                this.indentNext = indent;
            else {
                this.indentNext =
                    this.blockScalarIndent + (this.indentNext === 0 ? 1 : this.indentNext);
            }
            do {
                const cs = this.continueScalar(nl + 1);
                if (cs === -1)
                    break;
                nl = this.buffer.indexOf('\n', cs);
            } while (nl !== -1);
            if (nl === -1) {
                if (!this.atEnd)
                    return this.setNext('block-scalar');
                nl = this.buffer.length;
            }
        }
        // Trailing insufficiently indented tabs are invalid.
        // To catch that during parsing, we include them in the block scalar value.
        let i = nl + 1;
        ch = this.buffer[i];
        while (ch === ' ')
            ch = this.buffer[++i];
        if (ch === '\t') {
            while (ch === '\t' || ch === ' ' || ch === '\r' || ch === '\n')
                ch = this.buffer[++i];
            nl = i - 1;
        }
        else if (!this.blockScalarKeep) {
            do {
                let i = nl - 1;
                let ch = this.buffer[i];
                if (ch === '\r')
                    ch = this.buffer[--i];
                const lastChar = i; // Drop the line if last char not more indented
                while (ch === ' ')
                    ch = this.buffer[--i];
                if (ch === '\n' && i >= this.pos && i + 1 + indent > lastChar)
                    nl = i;
                else
                    break;
            } while (true);
        }
        yield cst.SCALAR;
        yield* this.pushToIndex(nl + 1, true);
        return yield* this.parseLineStart();
    }
    *parsePlainScalar() {
        const inFlow = this.flowLevel > 0;
        let end = this.pos - 1;
        let i = this.pos - 1;
        let ch;
        while ((ch = this.buffer[++i])) {
            if (ch === ':') {
                const next = this.buffer[i + 1];
                if (isEmpty(next) || (inFlow && flowIndicatorChars.has(next)))
                    break;
                end = i;
            }
            else if (isEmpty(ch)) {
                let next = this.buffer[i + 1];
                if (ch === '\r') {
                    if (next === '\n') {
                        i += 1;
                        ch = '\n';
                        next = this.buffer[i + 1];
                    }
                    else
                        end = i;
                }
                if (next === '#' || (inFlow && flowIndicatorChars.has(next)))
                    break;
                if (ch === '\n') {
                    const cs = this.continueScalar(i + 1);
                    if (cs === -1)
                        break;
                    i = Math.max(i, cs - 2); // to advance, but still account for ' #'
                }
            }
            else {
                if (inFlow && flowIndicatorChars.has(ch))
                    break;
                end = i;
            }
        }
        if (!ch && !this.atEnd)
            return this.setNext('plain-scalar');
        yield cst.SCALAR;
        yield* this.pushToIndex(end + 1, true);
        return inFlow ? 'flow' : 'doc';
    }
    *pushCount(n) {
        if (n > 0) {
            yield this.buffer.substr(this.pos, n);
            this.pos += n;
            return n;
        }
        return 0;
    }
    *pushToIndex(i, allowEmpty) {
        const s = this.buffer.slice(this.pos, i);
        if (s) {
            yield s;
            this.pos += s.length;
            return s.length;
        }
        else if (allowEmpty)
            yield '';
        return 0;
    }
    *pushIndicators() {
        let n = 0;
        loop: while (true) {
            switch (this.charAt(0)) {
                case '!':
                    n += yield* this.pushTag();
                    n += yield* this.pushSpaces(true);
                    continue loop;
                case '&':
                    n += yield* this.pushUntil(isNotAnchorChar);
                    n += yield* this.pushSpaces(true);
                    continue loop;
                case '-': // this is an error
                case '?': // this is an error outside flow collections
                case ':': {
                    const inFlow = this.flowLevel > 0;
                    const ch1 = this.charAt(1);
                    if (isEmpty(ch1) || (inFlow && flowIndicatorChars.has(ch1))) {
                        if (!inFlow)
                            this.indentNext = this.indentValue + 1;
                        else if (this.flowKey)
                            this.flowKey = false;
                        n += yield* this.pushCount(1);
                        n += yield* this.pushSpaces(true);
                        continue loop;
                    }
                }
            }
            break loop;
        }
        return n;
    }
    *pushTag() {
        if (this.charAt(1) === '<') {
            let i = this.pos + 2;
            let ch = this.buffer[i];
            while (!isEmpty(ch) && ch !== '>')
                ch = this.buffer[++i];
            return yield* this.pushToIndex(ch === '>' ? i + 1 : i, false);
        }
        else {
            let i = this.pos + 1;
            let ch = this.buffer[i];
            while (ch) {
                if (tagChars.has(ch))
                    ch = this.buffer[++i];
                else if (ch === '%' &&
                    hexDigits.has(this.buffer[i + 1]) &&
                    hexDigits.has(this.buffer[i + 2])) {
                    ch = this.buffer[(i += 3)];
                }
                else
                    break;
            }
            return yield* this.pushToIndex(i, false);
        }
    }
    *pushNewline() {
        const ch = this.buffer[this.pos];
        if (ch === '\n')
            return yield* this.pushCount(1);
        else if (ch === '\r' && this.charAt(1) === '\n')
            return yield* this.pushCount(2);
        else
            return 0;
    }
    *pushSpaces(allowTabs) {
        let i = this.pos - 1;
        let ch;
        do {
            ch = this.buffer[++i];
        } while (ch === ' ' || (allowTabs && ch === '\t'));
        const n = i - this.pos;
        if (n > 0) {
            yield this.buffer.substr(this.pos, n);
            this.pos = i;
        }
        return n;
    }
    *pushUntil(test) {
        let i = this.pos;
        let ch = this.buffer[i];
        while (!test(ch))
            ch = this.buffer[++i];
        return yield* this.pushToIndex(i, false);
    }
}

exports.Lexer = Lexer;


/***/ }),

/***/ 6628:
/***/ ((__unused_webpack_module, exports) => {



/**
 * Tracks newlines during parsing in order to provide an efficient API for
 * determining the one-indexed `{ line, col }` position for any offset
 * within the input.
 */
class LineCounter {
    constructor() {
        this.lineStarts = [];
        /**
         * Should be called in ascending order. Otherwise, call
         * `lineCounter.lineStarts.sort()` before calling `linePos()`.
         */
        this.addNewLine = (offset) => this.lineStarts.push(offset);
        /**
         * Performs a binary search and returns the 1-indexed { line, col }
         * position of `offset`. If `line === 0`, `addNewLine` has never been
         * called or `offset` is before the first known newline.
         */
        this.linePos = (offset) => {
            let low = 0;
            let high = this.lineStarts.length;
            while (low < high) {
                const mid = (low + high) >> 1; // Math.floor((low + high) / 2)
                if (this.lineStarts[mid] < offset)
                    low = mid + 1;
                else
                    high = mid;
            }
            if (this.lineStarts[low] === offset)
                return { line: low + 1, col: 1 };
            if (low === 0)
                return { line: 0, col: offset };
            const start = this.lineStarts[low - 1];
            return { line: low, col: offset - start + 1 };
        };
    }
}

exports.LineCounter = LineCounter;


/***/ }),

/***/ 3456:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var node_process = __nccwpck_require__(932);
var cst = __nccwpck_require__(3461);
var lexer = __nccwpck_require__(361);

function includesToken(list, type) {
    for (let i = 0; i < list.length; ++i)
        if (list[i].type === type)
            return true;
    return false;
}
function findNonEmptyIndex(list) {
    for (let i = 0; i < list.length; ++i) {
        switch (list[i].type) {
            case 'space':
            case 'comment':
            case 'newline':
                break;
            default:
                return i;
        }
    }
    return -1;
}
function isFlowToken(token) {
    switch (token?.type) {
        case 'alias':
        case 'scalar':
        case 'single-quoted-scalar':
        case 'double-quoted-scalar':
        case 'flow-collection':
            return true;
        default:
            return false;
    }
}
function getPrevProps(parent) {
    switch (parent.type) {
        case 'document':
            return parent.start;
        case 'block-map': {
            const it = parent.items[parent.items.length - 1];
            return it.sep ?? it.start;
        }
        case 'block-seq':
            return parent.items[parent.items.length - 1].start;
        /* istanbul ignore next should not happen */
        default:
            return [];
    }
}
/** Note: May modify input array */
function getFirstKeyStartProps(prev) {
    if (prev.length === 0)
        return [];
    let i = prev.length;
    loop: while (--i >= 0) {
        switch (prev[i].type) {
            case 'doc-start':
            case 'explicit-key-ind':
            case 'map-value-ind':
            case 'seq-item-ind':
            case 'newline':
                break loop;
        }
    }
    while (prev[++i]?.type === 'space') {
        /* loop */
    }
    return prev.splice(i, prev.length);
}
function arrayPushArray(target, source) {
    // May exhaust call stack with large `source` array
    if (source.length < 1e5)
        Array.prototype.push.apply(target, source);
    else
        for (let i = 0; i < source.length; ++i)
            target.push(source[i]);
}
function fixFlowSeqItems(fc) {
    if (fc.start.type === 'flow-seq-start') {
        for (const it of fc.items) {
            if (it.sep &&
                !it.value &&
                !includesToken(it.start, 'explicit-key-ind') &&
                !includesToken(it.sep, 'map-value-ind')) {
                if (it.key)
                    it.value = it.key;
                delete it.key;
                if (isFlowToken(it.value)) {
                    if (it.value.end)
                        arrayPushArray(it.value.end, it.sep);
                    else
                        it.value.end = it.sep;
                }
                else
                    arrayPushArray(it.start, it.sep);
                delete it.sep;
            }
        }
    }
}
/**
 * A YAML concrete syntax tree (CST) parser
 *
 * ```ts
 * const src: string = ...
 * for (const token of new Parser().parse(src)) {
 *   // token: Token
 * }
 * ```
 *
 * To use the parser with a user-provided lexer:
 *
 * ```ts
 * function* parse(source: string, lexer: Lexer) {
 *   const parser = new Parser()
 *   for (const lexeme of lexer.lex(source))
 *     yield* parser.next(lexeme)
 *   yield* parser.end()
 * }
 *
 * const src: string = ...
 * const lexer = new Lexer()
 * for (const token of parse(src, lexer)) {
 *   // token: Token
 * }
 * ```
 */
class Parser {
    /**
     * @param onNewLine - If defined, called separately with the start position of
     *   each new line (in `parse()`, including the start of input).
     */
    constructor(onNewLine) {
        /** If true, space and sequence indicators count as indentation */
        this.atNewLine = true;
        /** If true, next token is a scalar value */
        this.atScalar = false;
        /** Current indentation level */
        this.indent = 0;
        /** Current offset since the start of parsing */
        this.offset = 0;
        /** On the same line with a block map key */
        this.onKeyLine = false;
        /** Top indicates the node that's currently being built */
        this.stack = [];
        /** The source of the current token, set in parse() */
        this.source = '';
        /** The type of the current token, set in parse() */
        this.type = '';
        // Must be defined after `next()`
        this.lexer = new lexer.Lexer();
        this.onNewLine = onNewLine;
    }
    /**
     * Parse `source` as a YAML stream.
     * If `incomplete`, a part of the last line may be left as a buffer for the next call.
     *
     * Errors are not thrown, but yielded as `{ type: 'error', message }` tokens.
     *
     * @returns A generator of tokens representing each directive, document, and other structure.
     */
    *parse(source, incomplete = false) {
        if (this.onNewLine && this.offset === 0)
            this.onNewLine(0);
        for (const lexeme of this.lexer.lex(source, incomplete))
            yield* this.next(lexeme);
        if (!incomplete)
            yield* this.end();
    }
    /**
     * Advance the parser by the `source` of one lexical token.
     */
    *next(source) {
        this.source = source;
        if (node_process.env.LOG_TOKENS)
            console.log('|', cst.prettyToken(source));
        if (this.atScalar) {
            this.atScalar = false;
            yield* this.step();
            this.offset += source.length;
            return;
        }
        const type = cst.tokenType(source);
        if (!type) {
            const message = `Not a YAML token: ${source}`;
            yield* this.pop({ type: 'error', offset: this.offset, message, source });
            this.offset += source.length;
        }
        else if (type === 'scalar') {
            this.atNewLine = false;
            this.atScalar = true;
            this.type = 'scalar';
        }
        else {
            this.type = type;
            yield* this.step();
            switch (type) {
                case 'newline':
                    this.atNewLine = true;
                    this.indent = 0;
                    if (this.onNewLine)
                        this.onNewLine(this.offset + source.length);
                    break;
                case 'space':
                    if (this.atNewLine && source[0] === ' ')
                        this.indent += source.length;
                    break;
                case 'explicit-key-ind':
                case 'map-value-ind':
                case 'seq-item-ind':
                    if (this.atNewLine)
                        this.indent += source.length;
                    break;
                case 'doc-mode':
                case 'flow-error-end':
                    return;
                default:
                    this.atNewLine = false;
            }
            this.offset += source.length;
        }
    }
    /** Call at end of input to push out any remaining constructions */
    *end() {
        while (this.stack.length > 0)
            yield* this.pop();
    }
    get sourceToken() {
        const st = {
            type: this.type,
            offset: this.offset,
            indent: this.indent,
            source: this.source
        };
        return st;
    }
    *step() {
        const top = this.peek(1);
        if (this.type === 'doc-end' && top?.type !== 'doc-end') {
            while (this.stack.length > 0)
                yield* this.pop();
            this.stack.push({
                type: 'doc-end',
                offset: this.offset,
                source: this.source
            });
            return;
        }
        if (!top)
            return yield* this.stream();
        switch (top.type) {
            case 'document':
                return yield* this.document(top);
            case 'alias':
            case 'scalar':
            case 'single-quoted-scalar':
            case 'double-quoted-scalar':
                return yield* this.scalar(top);
            case 'block-scalar':
                return yield* this.blockScalar(top);
            case 'block-map':
                return yield* this.blockMap(top);
            case 'block-seq':
                return yield* this.blockSequence(top);
            case 'flow-collection':
                return yield* this.flowCollection(top);
            case 'doc-end':
                return yield* this.documentEnd(top);
        }
        /* istanbul ignore next should not happen */
        yield* this.pop();
    }
    peek(n) {
        return this.stack[this.stack.length - n];
    }
    *pop(error) {
        const token = error ?? this.stack.pop();
        /* istanbul ignore if should not happen */
        if (!token) {
            const message = 'Tried to pop an empty stack';
            yield { type: 'error', offset: this.offset, source: '', message };
        }
        else if (this.stack.length === 0) {
            yield token;
        }
        else {
            const top = this.peek(1);
            if (token.type === 'block-scalar') {
                // Block scalars use their parent rather than header indent
                token.indent = 'indent' in top ? top.indent : 0;
            }
            else if (token.type === 'flow-collection' && top.type === 'document') {
                // Ignore all indent for top-level flow collections
                token.indent = 0;
            }
            if (token.type === 'flow-collection')
                fixFlowSeqItems(token);
            switch (top.type) {
                case 'document':
                    top.value = token;
                    break;
                case 'block-scalar':
                    top.props.push(token); // error
                    break;
                case 'block-map': {
                    const it = top.items[top.items.length - 1];
                    if (it.value) {
                        top.items.push({ start: [], key: token, sep: [] });
                        this.onKeyLine = true;
                        return;
                    }
                    else if (it.sep) {
                        it.value = token;
                    }
                    else {
                        Object.assign(it, { key: token, sep: [] });
                        this.onKeyLine = !it.explicitKey;
                        return;
                    }
                    break;
                }
                case 'block-seq': {
                    const it = top.items[top.items.length - 1];
                    if (it.value)
                        top.items.push({ start: [], value: token });
                    else
                        it.value = token;
                    break;
                }
                case 'flow-collection': {
                    const it = top.items[top.items.length - 1];
                    if (!it || it.value)
                        top.items.push({ start: [], key: token, sep: [] });
                    else if (it.sep)
                        it.value = token;
                    else
                        Object.assign(it, { key: token, sep: [] });
                    return;
                }
                /* istanbul ignore next should not happen */
                default:
                    yield* this.pop();
                    yield* this.pop(token);
            }
            if ((top.type === 'document' ||
                top.type === 'block-map' ||
                top.type === 'block-seq') &&
                (token.type === 'block-map' || token.type === 'block-seq')) {
                const last = token.items[token.items.length - 1];
                if (last &&
                    !last.sep &&
                    !last.value &&
                    last.start.length > 0 &&
                    findNonEmptyIndex(last.start) === -1 &&
                    (token.indent === 0 ||
                        last.start.every(st => st.type !== 'comment' || st.indent < token.indent))) {
                    if (top.type === 'document')
                        top.end = last.start;
                    else
                        top.items.push({ start: last.start });
                    token.items.splice(-1, 1);
                }
            }
        }
    }
    *stream() {
        switch (this.type) {
            case 'directive-line':
                yield { type: 'directive', offset: this.offset, source: this.source };
                return;
            case 'byte-order-mark':
            case 'space':
            case 'comment':
            case 'newline':
                yield this.sourceToken;
                return;
            case 'doc-mode':
            case 'doc-start': {
                const doc = {
                    type: 'document',
                    offset: this.offset,
                    start: []
                };
                if (this.type === 'doc-start')
                    doc.start.push(this.sourceToken);
                this.stack.push(doc);
                return;
            }
        }
        yield {
            type: 'error',
            offset: this.offset,
            message: `Unexpected ${this.type} token in YAML stream`,
            source: this.source
        };
    }
    *document(doc) {
        if (doc.value)
            return yield* this.lineEnd(doc);
        switch (this.type) {
            case 'doc-start': {
                if (findNonEmptyIndex(doc.start) !== -1) {
                    yield* this.pop();
                    yield* this.step();
                }
                else
                    doc.start.push(this.sourceToken);
                return;
            }
            case 'anchor':
            case 'tag':
            case 'space':
            case 'comment':
            case 'newline':
                doc.start.push(this.sourceToken);
                return;
        }
        const bv = this.startBlockValue(doc);
        if (bv)
            this.stack.push(bv);
        else {
            yield {
                type: 'error',
                offset: this.offset,
                message: `Unexpected ${this.type} token in YAML document`,
                source: this.source
            };
        }
    }
    *scalar(scalar) {
        if (this.type === 'map-value-ind') {
            const prev = getPrevProps(this.peek(2));
            const start = getFirstKeyStartProps(prev);
            let sep;
            if (scalar.end) {
                sep = scalar.end;
                sep.push(this.sourceToken);
                delete scalar.end;
            }
            else
                sep = [this.sourceToken];
            const map = {
                type: 'block-map',
                offset: scalar.offset,
                indent: scalar.indent,
                items: [{ start, key: scalar, sep }]
            };
            this.onKeyLine = true;
            this.stack[this.stack.length - 1] = map;
        }
        else
            yield* this.lineEnd(scalar);
    }
    *blockScalar(scalar) {
        switch (this.type) {
            case 'space':
            case 'comment':
            case 'newline':
                scalar.props.push(this.sourceToken);
                return;
            case 'scalar':
                scalar.source = this.source;
                // block-scalar source includes trailing newline
                this.atNewLine = true;
                this.indent = 0;
                if (this.onNewLine) {
                    let nl = this.source.indexOf('\n') + 1;
                    while (nl !== 0) {
                        this.onNewLine(this.offset + nl);
                        nl = this.source.indexOf('\n', nl) + 1;
                    }
                }
                yield* this.pop();
                break;
            /* istanbul ignore next should not happen */
            default:
                yield* this.pop();
                yield* this.step();
        }
    }
    *blockMap(map) {
        const it = map.items[map.items.length - 1];
        // it.sep is true-ish if pair already has key or : separator
        switch (this.type) {
            case 'newline':
                this.onKeyLine = false;
                if (it.value) {
                    const end = 'end' in it.value ? it.value.end : undefined;
                    const last = Array.isArray(end) ? end[end.length - 1] : undefined;
                    if (last?.type === 'comment')
                        end?.push(this.sourceToken);
                    else
                        map.items.push({ start: [this.sourceToken] });
                }
                else if (it.sep) {
                    it.sep.push(this.sourceToken);
                }
                else {
                    it.start.push(this.sourceToken);
                }
                return;
            case 'space':
            case 'comment':
                if (it.value) {
                    map.items.push({ start: [this.sourceToken] });
                }
                else if (it.sep) {
                    it.sep.push(this.sourceToken);
                }
                else {
                    if (this.atIndentedComment(it.start, map.indent)) {
                        const prev = map.items[map.items.length - 2];
                        const end = prev?.value?.end;
                        if (Array.isArray(end)) {
                            arrayPushArray(end, it.start);
                            end.push(this.sourceToken);
                            map.items.pop();
                            return;
                        }
                    }
                    it.start.push(this.sourceToken);
                }
                return;
        }
        if (this.indent >= map.indent) {
            const atMapIndent = !this.onKeyLine && this.indent === map.indent;
            const atNextItem = atMapIndent &&
                (it.sep || it.explicitKey) &&
                this.type !== 'seq-item-ind';
            // For empty nodes, assign newline-separated not indented empty tokens to following node
            let start = [];
            if (atNextItem && it.sep && !it.value) {
                const nl = [];
                for (let i = 0; i < it.sep.length; ++i) {
                    const st = it.sep[i];
                    switch (st.type) {
                        case 'newline':
                            nl.push(i);
                            break;
                        case 'space':
                            break;
                        case 'comment':
                            if (st.indent > map.indent)
                                nl.length = 0;
                            break;
                        default:
                            nl.length = 0;
                    }
                }
                if (nl.length >= 2)
                    start = it.sep.splice(nl[1]);
            }
            switch (this.type) {
                case 'anchor':
                case 'tag':
                    if (atNextItem || it.value) {
                        start.push(this.sourceToken);
                        map.items.push({ start });
                        this.onKeyLine = true;
                    }
                    else if (it.sep) {
                        it.sep.push(this.sourceToken);
                    }
                    else {
                        it.start.push(this.sourceToken);
                    }
                    return;
                case 'explicit-key-ind':
                    if (!it.sep && !it.explicitKey) {
                        it.start.push(this.sourceToken);
                        it.explicitKey = true;
                    }
                    else if (atNextItem || it.value) {
                        start.push(this.sourceToken);
                        map.items.push({ start, explicitKey: true });
                    }
                    else {
                        this.stack.push({
                            type: 'block-map',
                            offset: this.offset,
                            indent: this.indent,
                            items: [{ start: [this.sourceToken], explicitKey: true }]
                        });
                    }
                    this.onKeyLine = true;
                    return;
                case 'map-value-ind':
                    if (it.explicitKey) {
                        if (!it.sep) {
                            if (includesToken(it.start, 'newline')) {
                                Object.assign(it, { key: null, sep: [this.sourceToken] });
                            }
                            else {
                                const start = getFirstKeyStartProps(it.start);
                                this.stack.push({
                                    type: 'block-map',
                                    offset: this.offset,
                                    indent: this.indent,
                                    items: [{ start, key: null, sep: [this.sourceToken] }]
                                });
                            }
                        }
                        else if (it.value) {
                            map.items.push({ start: [], key: null, sep: [this.sourceToken] });
                        }
                        else if (includesToken(it.sep, 'map-value-ind')) {
                            this.stack.push({
                                type: 'block-map',
                                offset: this.offset,
                                indent: this.indent,
                                items: [{ start, key: null, sep: [this.sourceToken] }]
                            });
                        }
                        else if (isFlowToken(it.key) &&
                            !includesToken(it.sep, 'newline')) {
                            const start = getFirstKeyStartProps(it.start);
                            const key = it.key;
                            const sep = it.sep;
                            sep.push(this.sourceToken);
                            // @ts-expect-error type guard is wrong here
                            delete it.key;
                            // @ts-expect-error type guard is wrong here
                            delete it.sep;
                            this.stack.push({
                                type: 'block-map',
                                offset: this.offset,
                                indent: this.indent,
                                items: [{ start, key, sep }]
                            });
                        }
                        else if (start.length > 0) {
                            // Not actually at next item
                            it.sep = it.sep.concat(start, this.sourceToken);
                        }
                        else {
                            it.sep.push(this.sourceToken);
                        }
                    }
                    else {
                        if (!it.sep) {
                            Object.assign(it, { key: null, sep: [this.sourceToken] });
                        }
                        else if (it.value || atNextItem) {
                            map.items.push({ start, key: null, sep: [this.sourceToken] });
                        }
                        else if (includesToken(it.sep, 'map-value-ind')) {
                            this.stack.push({
                                type: 'block-map',
                                offset: this.offset,
                                indent: this.indent,
                                items: [{ start: [], key: null, sep: [this.sourceToken] }]
                            });
                        }
                        else {
                            it.sep.push(this.sourceToken);
                        }
                    }
                    this.onKeyLine = true;
                    return;
                case 'alias':
                case 'scalar':
                case 'single-quoted-scalar':
                case 'double-quoted-scalar': {
                    const fs = this.flowScalar(this.type);
                    if (atNextItem || it.value) {
                        map.items.push({ start, key: fs, sep: [] });
                        this.onKeyLine = true;
                    }
                    else if (it.sep) {
                        this.stack.push(fs);
                    }
                    else {
                        Object.assign(it, { key: fs, sep: [] });
                        this.onKeyLine = true;
                    }
                    return;
                }
                default: {
                    const bv = this.startBlockValue(map);
                    if (bv) {
                        if (bv.type === 'block-seq') {
                            if (!it.explicitKey &&
                                it.sep &&
                                !includesToken(it.sep, 'newline')) {
                                yield* this.pop({
                                    type: 'error',
                                    offset: this.offset,
                                    message: 'Unexpected block-seq-ind on same line with key',
                                    source: this.source
                                });
                                return;
                            }
                        }
                        else if (atMapIndent) {
                            map.items.push({ start });
                        }
                        this.stack.push(bv);
                        return;
                    }
                }
            }
        }
        yield* this.pop();
        yield* this.step();
    }
    *blockSequence(seq) {
        const it = seq.items[seq.items.length - 1];
        switch (this.type) {
            case 'newline':
                if (it.value) {
                    const end = 'end' in it.value ? it.value.end : undefined;
                    const last = Array.isArray(end) ? end[end.length - 1] : undefined;
                    if (last?.type === 'comment')
                        end?.push(this.sourceToken);
                    else
                        seq.items.push({ start: [this.sourceToken] });
                }
                else
                    it.start.push(this.sourceToken);
                return;
            case 'space':
            case 'comment':
                if (it.value)
                    seq.items.push({ start: [this.sourceToken] });
                else {
                    if (this.atIndentedComment(it.start, seq.indent)) {
                        const prev = seq.items[seq.items.length - 2];
                        const end = prev?.value?.end;
                        if (Array.isArray(end)) {
                            arrayPushArray(end, it.start);
                            end.push(this.sourceToken);
                            seq.items.pop();
                            return;
                        }
                    }
                    it.start.push(this.sourceToken);
                }
                return;
            case 'anchor':
            case 'tag':
                if (it.value || this.indent <= seq.indent)
                    break;
                it.start.push(this.sourceToken);
                return;
            case 'seq-item-ind':
                if (this.indent !== seq.indent)
                    break;
                if (it.value || includesToken(it.start, 'seq-item-ind'))
                    seq.items.push({ start: [this.sourceToken] });
                else
                    it.start.push(this.sourceToken);
                return;
        }
        if (this.indent > seq.indent) {
            const bv = this.startBlockValue(seq);
            if (bv) {
                this.stack.push(bv);
                return;
            }
        }
        yield* this.pop();
        yield* this.step();
    }
    *flowCollection(fc) {
        const it = fc.items[fc.items.length - 1];
        if (this.type === 'flow-error-end') {
            let top;
            do {
                yield* this.pop();
                top = this.peek(1);
            } while (top?.type === 'flow-collection');
        }
        else if (fc.end.length === 0) {
            switch (this.type) {
                case 'comma':
                case 'explicit-key-ind':
                    if (!it || it.sep)
                        fc.items.push({ start: [this.sourceToken] });
                    else
                        it.start.push(this.sourceToken);
                    return;
                case 'map-value-ind':
                    if (!it || it.value)
                        fc.items.push({ start: [], key: null, sep: [this.sourceToken] });
                    else if (it.sep)
                        it.sep.push(this.sourceToken);
                    else
                        Object.assign(it, { key: null, sep: [this.sourceToken] });
                    return;
                case 'space':
                case 'comment':
                case 'newline':
                case 'anchor':
                case 'tag':
                    if (!it || it.value)
                        fc.items.push({ start: [this.sourceToken] });
                    else if (it.sep)
                        it.sep.push(this.sourceToken);
                    else
                        it.start.push(this.sourceToken);
                    return;
                case 'alias':
                case 'scalar':
                case 'single-quoted-scalar':
                case 'double-quoted-scalar': {
                    const fs = this.flowScalar(this.type);
                    if (!it || it.value)
                        fc.items.push({ start: [], key: fs, sep: [] });
                    else if (it.sep)
                        this.stack.push(fs);
                    else
                        Object.assign(it, { key: fs, sep: [] });
                    return;
                }
                case 'flow-map-end':
                case 'flow-seq-end':
                    fc.end.push(this.sourceToken);
                    return;
            }
            const bv = this.startBlockValue(fc);
            /* istanbul ignore else should not happen */
            if (bv)
                this.stack.push(bv);
            else {
                yield* this.pop();
                yield* this.step();
            }
        }
        else {
            const parent = this.peek(2);
            if (parent.type === 'block-map' &&
                ((this.type === 'map-value-ind' && parent.indent === fc.indent) ||
                    (this.type === 'newline' &&
                        !parent.items[parent.items.length - 1].sep))) {
                yield* this.pop();
                yield* this.step();
            }
            else if (this.type === 'map-value-ind' &&
                parent.type !== 'flow-collection') {
                const prev = getPrevProps(parent);
                const start = getFirstKeyStartProps(prev);
                fixFlowSeqItems(fc);
                const sep = fc.end.splice(1, fc.end.length);
                sep.push(this.sourceToken);
                const map = {
                    type: 'block-map',
                    offset: fc.offset,
                    indent: fc.indent,
                    items: [{ start, key: fc, sep }]
                };
                this.onKeyLine = true;
                this.stack[this.stack.length - 1] = map;
            }
            else {
                yield* this.lineEnd(fc);
            }
        }
    }
    flowScalar(type) {
        if (this.onNewLine) {
            let nl = this.source.indexOf('\n') + 1;
            while (nl !== 0) {
                this.onNewLine(this.offset + nl);
                nl = this.source.indexOf('\n', nl) + 1;
            }
        }
        return {
            type,
            offset: this.offset,
            indent: this.indent,
            source: this.source
        };
    }
    startBlockValue(parent) {
        switch (this.type) {
            case 'alias':
            case 'scalar':
            case 'single-quoted-scalar':
            case 'double-quoted-scalar':
                return this.flowScalar(this.type);
            case 'block-scalar-header':
                return {
                    type: 'block-scalar',
                    offset: this.offset,
                    indent: this.indent,
                    props: [this.sourceToken],
                    source: ''
                };
            case 'flow-map-start':
            case 'flow-seq-start':
                return {
                    type: 'flow-collection',
                    offset: this.offset,
                    indent: this.indent,
                    start: this.sourceToken,
                    items: [],
                    end: []
                };
            case 'seq-item-ind':
                return {
                    type: 'block-seq',
                    offset: this.offset,
                    indent: this.indent,
                    items: [{ start: [this.sourceToken] }]
                };
            case 'explicit-key-ind': {
                this.onKeyLine = true;
                const prev = getPrevProps(parent);
                const start = getFirstKeyStartProps(prev);
                start.push(this.sourceToken);
                return {
                    type: 'block-map',
                    offset: this.offset,
                    indent: this.indent,
                    items: [{ start, explicitKey: true }]
                };
            }
            case 'map-value-ind': {
                this.onKeyLine = true;
                const prev = getPrevProps(parent);
                const start = getFirstKeyStartProps(prev);
                return {
                    type: 'block-map',
                    offset: this.offset,
                    indent: this.indent,
                    items: [{ start, key: null, sep: [this.sourceToken] }]
                };
            }
        }
        return null;
    }
    atIndentedComment(start, indent) {
        if (this.type !== 'comment')
            return false;
        if (this.indent <= indent)
            return false;
        return start.every(st => st.type === 'newline' || st.type === 'space');
    }
    *documentEnd(docEnd) {
        if (this.type !== 'doc-mode') {
            if (docEnd.end)
                docEnd.end.push(this.sourceToken);
            else
                docEnd.end = [this.sourceToken];
            if (this.type === 'newline')
                yield* this.pop();
        }
    }
    *lineEnd(token) {
        switch (this.type) {
            case 'comma':
            case 'doc-start':
            case 'doc-end':
            case 'flow-seq-end':
            case 'flow-map-end':
            case 'map-value-ind':
                yield* this.pop();
                yield* this.step();
                break;
            case 'newline':
                this.onKeyLine = false;
            // fallthrough
            case 'space':
            case 'comment':
            default:
                // all other values are errors
                if (token.end)
                    token.end.push(this.sourceToken);
                else
                    token.end = [this.sourceToken];
                if (this.type === 'newline')
                    yield* this.pop();
        }
    }
}

exports.Parser = Parser;


/***/ }),

/***/ 4047:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var composer = __nccwpck_require__(9984);
var Document = __nccwpck_require__(3021);
var errors = __nccwpck_require__(1464);
var log = __nccwpck_require__(7249);
var identity = __nccwpck_require__(1127);
var lineCounter = __nccwpck_require__(6628);
var parser = __nccwpck_require__(3456);

function parseOptions(options) {
    const prettyErrors = options.prettyErrors !== false;
    const lineCounter$1 = options.lineCounter || (prettyErrors && new lineCounter.LineCounter()) || null;
    return { lineCounter: lineCounter$1, prettyErrors };
}
/**
 * Parse the input as a stream of YAML documents.
 *
 * Documents should be separated from each other by `...` or `---` marker lines.
 *
 * @returns If an empty `docs` array is returned, it will be of type
 *   EmptyStream and contain additional stream information. In
 *   TypeScript, you should use `'empty' in docs` as a type guard for it.
 */
function parseAllDocuments(source, options = {}) {
    const { lineCounter, prettyErrors } = parseOptions(options);
    const parser$1 = new parser.Parser(lineCounter?.addNewLine);
    const composer$1 = new composer.Composer(options);
    const docs = Array.from(composer$1.compose(parser$1.parse(source)));
    if (prettyErrors && lineCounter)
        for (const doc of docs) {
            doc.errors.forEach(errors.prettifyError(source, lineCounter));
            doc.warnings.forEach(errors.prettifyError(source, lineCounter));
        }
    if (docs.length > 0)
        return docs;
    return Object.assign([], { empty: true }, composer$1.streamInfo());
}
/** Parse an input string into a single YAML.Document */
function parseDocument(source, options = {}) {
    const { lineCounter, prettyErrors } = parseOptions(options);
    const parser$1 = new parser.Parser(lineCounter?.addNewLine);
    const composer$1 = new composer.Composer(options);
    // `doc` is always set by compose.end(true) at the very latest
    let doc = null;
    for (const _doc of composer$1.compose(parser$1.parse(source), true, source.length)) {
        if (!doc)
            doc = _doc;
        else if (doc.options.logLevel !== 'silent') {
            doc.errors.push(new errors.YAMLParseError(_doc.range.slice(0, 2), 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
            break;
        }
    }
    if (prettyErrors && lineCounter) {
        doc.errors.forEach(errors.prettifyError(source, lineCounter));
        doc.warnings.forEach(errors.prettifyError(source, lineCounter));
    }
    return doc;
}
function parse(src, reviver, options) {
    let _reviver = undefined;
    if (typeof reviver === 'function') {
        _reviver = reviver;
    }
    else if (options === undefined && reviver && typeof reviver === 'object') {
        options = reviver;
    }
    const doc = parseDocument(src, options);
    if (!doc)
        return null;
    doc.warnings.forEach(warning => log.warn(doc.options.logLevel, warning));
    if (doc.errors.length > 0) {
        if (doc.options.logLevel !== 'silent')
            throw doc.errors[0];
        else
            doc.errors = [];
    }
    return doc.toJS(Object.assign({ reviver: _reviver }, options));
}
function stringify(value, replacer, options) {
    let _replacer = null;
    if (typeof replacer === 'function' || Array.isArray(replacer)) {
        _replacer = replacer;
    }
    else if (options === undefined && replacer) {
        options = replacer;
    }
    if (typeof options === 'string')
        options = options.length;
    if (typeof options === 'number') {
        const indent = Math.round(options);
        options = indent < 1 ? undefined : indent > 8 ? { indent: 8 } : { indent };
    }
    if (value === undefined) {
        const { keepUndefined } = options ?? replacer ?? {};
        if (!keepUndefined)
            return undefined;
    }
    if (identity.isDocument(value) && !_replacer)
        return value.toString(options);
    return new Document.Document(value, _replacer, options).toString(options);
}

exports.parse = parse;
exports.parseAllDocuments = parseAllDocuments;
exports.parseDocument = parseDocument;
exports.stringify = stringify;


/***/ }),

/***/ 5840:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var map = __nccwpck_require__(7451);
var seq = __nccwpck_require__(1706);
var string = __nccwpck_require__(6464);
var tags = __nccwpck_require__(18);

const sortMapEntriesByKey = (a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
class Schema {
    constructor({ compat, customTags, merge, resolveKnownTags, schema, sortMapEntries, toStringDefaults }) {
        this.compat = Array.isArray(compat)
            ? tags.getTags(compat, 'compat')
            : compat
                ? tags.getTags(null, compat)
                : null;
        this.name = (typeof schema === 'string' && schema) || 'core';
        this.knownTags = resolveKnownTags ? tags.coreKnownTags : {};
        this.tags = tags.getTags(customTags, this.name, merge);
        this.toStringOptions = toStringDefaults ?? null;
        Object.defineProperty(this, identity.MAP, { value: map.map });
        Object.defineProperty(this, identity.SCALAR, { value: string.string });
        Object.defineProperty(this, identity.SEQ, { value: seq.seq });
        // Used by createMap()
        this.sortMapEntries =
            typeof sortMapEntries === 'function'
                ? sortMapEntries
                : sortMapEntries === true
                    ? sortMapEntriesByKey
                    : null;
    }
    clone() {
        const copy = Object.create(Schema.prototype, Object.getOwnPropertyDescriptors(this));
        copy.tags = this.tags.slice();
        return copy;
    }
}

exports.Schema = Schema;


/***/ }),

/***/ 7451:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var YAMLMap = __nccwpck_require__(4454);

const map = {
    collection: 'map',
    default: true,
    nodeClass: YAMLMap.YAMLMap,
    tag: 'tag:yaml.org,2002:map',
    resolve(map, onError) {
        if (!identity.isMap(map))
            onError('Expected a mapping for this tag');
        return map;
    },
    createNode: (schema, obj, ctx) => YAMLMap.YAMLMap.from(schema, obj, ctx)
};

exports.map = map;


/***/ }),

/***/ 3632:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);

const nullTag = {
    identify: value => value == null,
    createNode: () => new Scalar.Scalar(null),
    default: true,
    tag: 'tag:yaml.org,2002:null',
    test: /^(?:~|[Nn]ull|NULL)?$/,
    resolve: () => new Scalar.Scalar(null),
    stringify: ({ source }, ctx) => typeof source === 'string' && nullTag.test.test(source)
        ? source
        : ctx.options.nullStr
};

exports.nullTag = nullTag;


/***/ }),

/***/ 1706:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var YAMLSeq = __nccwpck_require__(2223);

const seq = {
    collection: 'seq',
    default: true,
    nodeClass: YAMLSeq.YAMLSeq,
    tag: 'tag:yaml.org,2002:seq',
    resolve(seq, onError) {
        if (!identity.isSeq(seq))
            onError('Expected a sequence for this tag');
        return seq;
    },
    createNode: (schema, obj, ctx) => YAMLSeq.YAMLSeq.from(schema, obj, ctx)
};

exports.seq = seq;


/***/ }),

/***/ 6464:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyString = __nccwpck_require__(3069);

const string = {
    identify: value => typeof value === 'string',
    default: true,
    tag: 'tag:yaml.org,2002:str',
    resolve: str => str,
    stringify(item, ctx, onComment, onChompKeep) {
        ctx = Object.assign({ actualString: true }, ctx);
        return stringifyString.stringifyString(item, ctx, onComment, onChompKeep);
    }
};

exports.string = string;


/***/ }),

/***/ 3959:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);

const boolTag = {
    identify: value => typeof value === 'boolean',
    default: true,
    tag: 'tag:yaml.org,2002:bool',
    test: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
    resolve: str => new Scalar.Scalar(str[0] === 't' || str[0] === 'T'),
    stringify({ source, value }, ctx) {
        if (source && boolTag.test.test(source)) {
            const sv = source[0] === 't' || source[0] === 'T';
            if (value === sv)
                return source;
        }
        return value ? ctx.options.trueStr : ctx.options.falseStr;
    }
};

exports.boolTag = boolTag;


/***/ }),

/***/ 8405:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var stringifyNumber = __nccwpck_require__(8689);

const floatNaN = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
    resolve: str => str.slice(-3).toLowerCase() === 'nan'
        ? NaN
        : str[0] === '-'
            ? Number.NEGATIVE_INFINITY
            : Number.POSITIVE_INFINITY,
    stringify: stringifyNumber.stringifyNumber
};
const floatExp = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    format: 'EXP',
    test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
    resolve: str => parseFloat(str),
    stringify(node) {
        const num = Number(node.value);
        return isFinite(num) ? num.toExponential() : stringifyNumber.stringifyNumber(node);
    }
};
const float = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    test: /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
    resolve(str) {
        const node = new Scalar.Scalar(parseFloat(str));
        const dot = str.indexOf('.');
        if (dot !== -1 && str[str.length - 1] === '0')
            node.minFractionDigits = str.length - dot - 1;
        return node;
    },
    stringify: stringifyNumber.stringifyNumber
};

exports.float = float;
exports.floatExp = floatExp;
exports.floatNaN = floatNaN;


/***/ }),

/***/ 9874:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyNumber = __nccwpck_require__(8689);

const intIdentify = (value) => typeof value === 'bigint' || Number.isInteger(value);
const intResolve = (str, offset, radix, { intAsBigInt }) => (intAsBigInt ? BigInt(str) : parseInt(str.substring(offset), radix));
function intStringify(node, radix, prefix) {
    const { value } = node;
    if (intIdentify(value) && value >= 0)
        return prefix + value.toString(radix);
    return stringifyNumber.stringifyNumber(node);
}
const intOct = {
    identify: value => intIdentify(value) && value >= 0,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'OCT',
    test: /^0o[0-7]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 2, 8, opt),
    stringify: node => intStringify(node, 8, '0o')
};
const int = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    test: /^[-+]?[0-9]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 0, 10, opt),
    stringify: stringifyNumber.stringifyNumber
};
const intHex = {
    identify: value => intIdentify(value) && value >= 0,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'HEX',
    test: /^0x[0-9a-fA-F]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 2, 16, opt),
    stringify: node => intStringify(node, 16, '0x')
};

exports.int = int;
exports.intHex = intHex;
exports.intOct = intOct;


/***/ }),

/***/ 896:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var map = __nccwpck_require__(7451);
var _null = __nccwpck_require__(3632);
var seq = __nccwpck_require__(1706);
var string = __nccwpck_require__(6464);
var bool = __nccwpck_require__(3959);
var float = __nccwpck_require__(8405);
var int = __nccwpck_require__(9874);

const schema = [
    map.map,
    seq.seq,
    string.string,
    _null.nullTag,
    bool.boolTag,
    int.intOct,
    int.int,
    int.intHex,
    float.floatNaN,
    float.floatExp,
    float.float
];

exports.schema = schema;


/***/ }),

/***/ 3559:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var map = __nccwpck_require__(7451);
var seq = __nccwpck_require__(1706);

function intIdentify(value) {
    return typeof value === 'bigint' || Number.isInteger(value);
}
const stringifyJSON = ({ value }) => JSON.stringify(value);
const jsonScalars = [
    {
        identify: value => typeof value === 'string',
        default: true,
        tag: 'tag:yaml.org,2002:str',
        resolve: str => str,
        stringify: stringifyJSON
    },
    {
        identify: value => value == null,
        createNode: () => new Scalar.Scalar(null),
        default: true,
        tag: 'tag:yaml.org,2002:null',
        test: /^null$/,
        resolve: () => null,
        stringify: stringifyJSON
    },
    {
        identify: value => typeof value === 'boolean',
        default: true,
        tag: 'tag:yaml.org,2002:bool',
        test: /^true$|^false$/,
        resolve: str => str === 'true',
        stringify: stringifyJSON
    },
    {
        identify: intIdentify,
        default: true,
        tag: 'tag:yaml.org,2002:int',
        test: /^-?(?:0|[1-9][0-9]*)$/,
        resolve: (str, _onError, { intAsBigInt }) => intAsBigInt ? BigInt(str) : parseInt(str, 10),
        stringify: ({ value }) => intIdentify(value) ? value.toString() : JSON.stringify(value)
    },
    {
        identify: value => typeof value === 'number',
        default: true,
        tag: 'tag:yaml.org,2002:float',
        test: /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?$/,
        resolve: str => parseFloat(str),
        stringify: stringifyJSON
    }
];
const jsonError = {
    default: true,
    tag: '',
    test: /^/,
    resolve(str, onError) {
        onError(`Unresolved plain scalar ${JSON.stringify(str)}`);
        return str;
    }
};
const schema = [map.map, seq.seq].concat(jsonScalars, jsonError);

exports.schema = schema;


/***/ }),

/***/ 18:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var map = __nccwpck_require__(7451);
var _null = __nccwpck_require__(3632);
var seq = __nccwpck_require__(1706);
var string = __nccwpck_require__(6464);
var bool = __nccwpck_require__(3959);
var float = __nccwpck_require__(8405);
var int = __nccwpck_require__(9874);
var schema = __nccwpck_require__(896);
var schema$1 = __nccwpck_require__(3559);
var binary = __nccwpck_require__(6083);
var merge = __nccwpck_require__(452);
var omap = __nccwpck_require__(303);
var pairs = __nccwpck_require__(8385);
var schema$2 = __nccwpck_require__(5913);
var set = __nccwpck_require__(1528);
var timestamp = __nccwpck_require__(6752);

const schemas = new Map([
    ['core', schema.schema],
    ['failsafe', [map.map, seq.seq, string.string]],
    ['json', schema$1.schema],
    ['yaml11', schema$2.schema],
    ['yaml-1.1', schema$2.schema]
]);
const tagsByName = {
    binary: binary.binary,
    bool: bool.boolTag,
    float: float.float,
    floatExp: float.floatExp,
    floatNaN: float.floatNaN,
    floatTime: timestamp.floatTime,
    int: int.int,
    intHex: int.intHex,
    intOct: int.intOct,
    intTime: timestamp.intTime,
    map: map.map,
    merge: merge.merge,
    null: _null.nullTag,
    omap: omap.omap,
    pairs: pairs.pairs,
    seq: seq.seq,
    set: set.set,
    timestamp: timestamp.timestamp
};
const coreKnownTags = {
    'tag:yaml.org,2002:binary': binary.binary,
    'tag:yaml.org,2002:merge': merge.merge,
    'tag:yaml.org,2002:omap': omap.omap,
    'tag:yaml.org,2002:pairs': pairs.pairs,
    'tag:yaml.org,2002:set': set.set,
    'tag:yaml.org,2002:timestamp': timestamp.timestamp
};
function getTags(customTags, schemaName, addMergeTag) {
    const schemaTags = schemas.get(schemaName);
    if (schemaTags && !customTags) {
        return addMergeTag && !schemaTags.includes(merge.merge)
            ? schemaTags.concat(merge.merge)
            : schemaTags.slice();
    }
    let tags = schemaTags;
    if (!tags) {
        if (Array.isArray(customTags))
            tags = [];
        else {
            const keys = Array.from(schemas.keys())
                .filter(key => key !== 'yaml11')
                .map(key => JSON.stringify(key))
                .join(', ');
            throw new Error(`Unknown schema "${schemaName}"; use one of ${keys} or define customTags array`);
        }
    }
    if (Array.isArray(customTags)) {
        for (const tag of customTags)
            tags = tags.concat(tag);
    }
    else if (typeof customTags === 'function') {
        tags = customTags(tags.slice());
    }
    if (addMergeTag)
        tags = tags.concat(merge.merge);
    return tags.reduce((tags, tag) => {
        const tagObj = typeof tag === 'string' ? tagsByName[tag] : tag;
        if (!tagObj) {
            const tagName = JSON.stringify(tag);
            const keys = Object.keys(tagsByName)
                .map(key => JSON.stringify(key))
                .join(', ');
            throw new Error(`Unknown custom tag ${tagName}; use one of ${keys}`);
        }
        if (!tags.includes(tagObj))
            tags.push(tagObj);
        return tags;
    }, []);
}

exports.coreKnownTags = coreKnownTags;
exports.getTags = getTags;


/***/ }),

/***/ 6083:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var node_buffer = __nccwpck_require__(181);
var Scalar = __nccwpck_require__(3301);
var stringifyString = __nccwpck_require__(3069);

const binary = {
    identify: value => value instanceof Uint8Array, // Buffer inherits from Uint8Array
    default: false,
    tag: 'tag:yaml.org,2002:binary',
    /**
     * Returns a Buffer in node and an Uint8Array in browsers
     *
     * To use the resulting buffer as an image, you'll want to do something like:
     *
     *   const blob = new Blob([buffer], { type: 'image/jpeg' })
     *   document.querySelector('#photo').src = URL.createObjectURL(blob)
     */
    resolve(src, onError) {
        if (typeof node_buffer.Buffer === 'function') {
            return node_buffer.Buffer.from(src, 'base64');
        }
        else if (typeof atob === 'function') {
            // On IE 11, atob() can't handle newlines
            const str = atob(src.replace(/[\n\r]/g, ''));
            const buffer = new Uint8Array(str.length);
            for (let i = 0; i < str.length; ++i)
                buffer[i] = str.charCodeAt(i);
            return buffer;
        }
        else {
            onError('This environment does not support reading binary tags; either Buffer or atob is required');
            return src;
        }
    },
    stringify({ comment, type, value }, ctx, onComment, onChompKeep) {
        if (!value)
            return '';
        const buf = value; // checked earlier by binary.identify()
        let str;
        if (typeof node_buffer.Buffer === 'function') {
            str =
                buf instanceof node_buffer.Buffer
                    ? buf.toString('base64')
                    : node_buffer.Buffer.from(buf.buffer).toString('base64');
        }
        else if (typeof btoa === 'function') {
            let s = '';
            for (let i = 0; i < buf.length; ++i)
                s += String.fromCharCode(buf[i]);
            str = btoa(s);
        }
        else {
            throw new Error('This environment does not support writing binary tags; either Buffer or btoa is required');
        }
        type ?? (type = Scalar.Scalar.BLOCK_LITERAL);
        if (type !== Scalar.Scalar.QUOTE_DOUBLE) {
            const lineWidth = Math.max(ctx.options.lineWidth - ctx.indent.length, ctx.options.minContentWidth);
            const n = Math.ceil(str.length / lineWidth);
            const lines = new Array(n);
            for (let i = 0, o = 0; i < n; ++i, o += lineWidth) {
                lines[i] = str.substr(o, lineWidth);
            }
            str = lines.join(type === Scalar.Scalar.BLOCK_LITERAL ? '\n' : ' ');
        }
        return stringifyString.stringifyString({ comment, type, value: str }, ctx, onComment, onChompKeep);
    }
};

exports.binary = binary;


/***/ }),

/***/ 8398:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);

function boolStringify({ value, source }, ctx) {
    const boolObj = value ? trueTag : falseTag;
    if (source && boolObj.test.test(source))
        return source;
    return value ? ctx.options.trueStr : ctx.options.falseStr;
}
const trueTag = {
    identify: value => value === true,
    default: true,
    tag: 'tag:yaml.org,2002:bool',
    test: /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
    resolve: () => new Scalar.Scalar(true),
    stringify: boolStringify
};
const falseTag = {
    identify: value => value === false,
    default: true,
    tag: 'tag:yaml.org,2002:bool',
    test: /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
    resolve: () => new Scalar.Scalar(false),
    stringify: boolStringify
};

exports.falseTag = falseTag;
exports.trueTag = trueTag;


/***/ }),

/***/ 5782:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var stringifyNumber = __nccwpck_require__(8689);

const floatNaN = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
    resolve: (str) => str.slice(-3).toLowerCase() === 'nan'
        ? NaN
        : str[0] === '-'
            ? Number.NEGATIVE_INFINITY
            : Number.POSITIVE_INFINITY,
    stringify: stringifyNumber.stringifyNumber
};
const floatExp = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    format: 'EXP',
    test: /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
    resolve: (str) => parseFloat(str.replace(/_/g, '')),
    stringify(node) {
        const num = Number(node.value);
        return isFinite(num) ? num.toExponential() : stringifyNumber.stringifyNumber(node);
    }
};
const float = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    test: /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
    resolve(str) {
        const node = new Scalar.Scalar(parseFloat(str.replace(/_/g, '')));
        const dot = str.indexOf('.');
        if (dot !== -1) {
            const f = str.substring(dot + 1).replace(/_/g, '');
            if (f[f.length - 1] === '0')
                node.minFractionDigits = f.length;
        }
        return node;
    },
    stringify: stringifyNumber.stringifyNumber
};

exports.float = float;
exports.floatExp = floatExp;
exports.floatNaN = floatNaN;


/***/ }),

/***/ 873:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyNumber = __nccwpck_require__(8689);

const intIdentify = (value) => typeof value === 'bigint' || Number.isInteger(value);
function intResolve(str, offset, radix, { intAsBigInt }) {
    const sign = str[0];
    if (sign === '-' || sign === '+')
        offset += 1;
    str = str.substring(offset).replace(/_/g, '');
    if (intAsBigInt) {
        switch (radix) {
            case 2:
                str = `0b${str}`;
                break;
            case 8:
                str = `0o${str}`;
                break;
            case 16:
                str = `0x${str}`;
                break;
        }
        const n = BigInt(str);
        return sign === '-' ? BigInt(-1) * n : n;
    }
    const n = parseInt(str, radix);
    return sign === '-' ? -1 * n : n;
}
function intStringify(node, radix, prefix) {
    const { value } = node;
    if (intIdentify(value)) {
        const str = value.toString(radix);
        return value < 0 ? '-' + prefix + str.substr(1) : prefix + str;
    }
    return stringifyNumber.stringifyNumber(node);
}
const intBin = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'BIN',
    test: /^[-+]?0b[0-1_]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 2, 2, opt),
    stringify: node => intStringify(node, 2, '0b')
};
const intOct = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'OCT',
    test: /^[-+]?0[0-7_]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 1, 8, opt),
    stringify: node => intStringify(node, 8, '0')
};
const int = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    test: /^[-+]?[0-9][0-9_]*$/,
    resolve: (str, _onError, opt) => intResolve(str, 0, 10, opt),
    stringify: stringifyNumber.stringifyNumber
};
const intHex = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'HEX',
    test: /^[-+]?0x[0-9a-fA-F_]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 2, 16, opt),
    stringify: node => intStringify(node, 16, '0x')
};

exports.int = int;
exports.intBin = intBin;
exports.intHex = intHex;
exports.intOct = intOct;


/***/ }),

/***/ 452:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);

// If the value associated with a merge key is a single mapping node, each of
// its key/value pairs is inserted into the current mapping, unless the key
// already exists in it. If the value associated with the merge key is a
// sequence, then this sequence is expected to contain mapping nodes and each
// of these nodes is merged in turn according to its order in the sequence.
// Keys in mapping nodes earlier in the sequence override keys specified in
// later mapping nodes. -- http://yaml.org/type/merge.html
const MERGE_KEY = '<<';
const merge = {
    identify: value => value === MERGE_KEY ||
        (typeof value === 'symbol' && value.description === MERGE_KEY),
    default: 'key',
    tag: 'tag:yaml.org,2002:merge',
    test: /^<<$/,
    resolve: () => Object.assign(new Scalar.Scalar(Symbol(MERGE_KEY)), {
        addToJSMap: addMergeToJSMap
    }),
    stringify: () => MERGE_KEY
};
const isMergeKey = (ctx, key) => (merge.identify(key) ||
    (identity.isScalar(key) &&
        (!key.type || key.type === Scalar.Scalar.PLAIN) &&
        merge.identify(key.value))) &&
    ctx?.doc.schema.tags.some(tag => tag.tag === merge.tag && tag.default);
function addMergeToJSMap(ctx, map, value) {
    const source = resolveAliasValue(ctx, value);
    if (identity.isSeq(source))
        for (const it of source.items)
            mergeValue(ctx, map, it);
    else if (Array.isArray(source))
        for (const it of source)
            mergeValue(ctx, map, it);
    else
        mergeValue(ctx, map, source);
}
function mergeValue(ctx, map, value) {
    const source = resolveAliasValue(ctx, value);
    if (!identity.isMap(source))
        throw new Error('Merge sources must be maps or map aliases');
    const srcMap = source.toJSON(null, ctx, Map);
    for (const [key, value] of srcMap) {
        if (map instanceof Map) {
            if (!map.has(key))
                map.set(key, value);
        }
        else if (map instanceof Set) {
            map.add(key);
        }
        else if (!Object.prototype.hasOwnProperty.call(map, key)) {
            Object.defineProperty(map, key, {
                value,
                writable: true,
                enumerable: true,
                configurable: true
            });
        }
    }
    return map;
}
function resolveAliasValue(ctx, value) {
    return ctx && identity.isAlias(value) ? value.resolve(ctx.doc, ctx) : value;
}

exports.addMergeToJSMap = addMergeToJSMap;
exports.isMergeKey = isMergeKey;
exports.merge = merge;


/***/ }),

/***/ 303:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var toJS = __nccwpck_require__(4043);
var YAMLMap = __nccwpck_require__(4454);
var YAMLSeq = __nccwpck_require__(2223);
var pairs = __nccwpck_require__(8385);

class YAMLOMap extends YAMLSeq.YAMLSeq {
    constructor() {
        super();
        this.add = YAMLMap.YAMLMap.prototype.add.bind(this);
        this.delete = YAMLMap.YAMLMap.prototype.delete.bind(this);
        this.get = YAMLMap.YAMLMap.prototype.get.bind(this);
        this.has = YAMLMap.YAMLMap.prototype.has.bind(this);
        this.set = YAMLMap.YAMLMap.prototype.set.bind(this);
        this.tag = YAMLOMap.tag;
    }
    /**
     * If `ctx` is given, the return type is actually `Map<unknown, unknown>`,
     * but TypeScript won't allow widening the signature of a child method.
     */
    toJSON(_, ctx) {
        if (!ctx)
            return super.toJSON(_);
        const map = new Map();
        if (ctx?.onCreate)
            ctx.onCreate(map);
        for (const pair of this.items) {
            let key, value;
            if (identity.isPair(pair)) {
                key = toJS.toJS(pair.key, '', ctx);
                value = toJS.toJS(pair.value, key, ctx);
            }
            else {
                key = toJS.toJS(pair, '', ctx);
            }
            if (map.has(key))
                throw new Error('Ordered maps must not include duplicate keys');
            map.set(key, value);
        }
        return map;
    }
    static from(schema, iterable, ctx) {
        const pairs$1 = pairs.createPairs(schema, iterable, ctx);
        const omap = new this();
        omap.items = pairs$1.items;
        return omap;
    }
}
YAMLOMap.tag = 'tag:yaml.org,2002:omap';
const omap = {
    collection: 'seq',
    identify: value => value instanceof Map,
    nodeClass: YAMLOMap,
    default: false,
    tag: 'tag:yaml.org,2002:omap',
    resolve(seq, onError) {
        const pairs$1 = pairs.resolvePairs(seq, onError);
        const seenKeys = [];
        for (const { key } of pairs$1.items) {
            if (identity.isScalar(key)) {
                if (seenKeys.includes(key.value)) {
                    onError(`Ordered maps must not include duplicate keys: ${key.value}`);
                }
                else {
                    seenKeys.push(key.value);
                }
            }
        }
        return Object.assign(new YAMLOMap(), pairs$1);
    },
    createNode: (schema, iterable, ctx) => YAMLOMap.from(schema, iterable, ctx)
};

exports.YAMLOMap = YAMLOMap;
exports.omap = omap;


/***/ }),

/***/ 8385:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var Scalar = __nccwpck_require__(3301);
var YAMLSeq = __nccwpck_require__(2223);

function resolvePairs(seq, onError) {
    if (identity.isSeq(seq)) {
        for (let i = 0; i < seq.items.length; ++i) {
            let item = seq.items[i];
            if (identity.isPair(item))
                continue;
            else if (identity.isMap(item)) {
                if (item.items.length > 1)
                    onError('Each pair must have its own sequence indicator');
                const pair = item.items[0] || new Pair.Pair(new Scalar.Scalar(null));
                if (item.commentBefore)
                    pair.key.commentBefore = pair.key.commentBefore
                        ? `${item.commentBefore}\n${pair.key.commentBefore}`
                        : item.commentBefore;
                if (item.comment) {
                    const cn = pair.value ?? pair.key;
                    cn.comment = cn.comment
                        ? `${item.comment}\n${cn.comment}`
                        : item.comment;
                }
                item = pair;
            }
            seq.items[i] = identity.isPair(item) ? item : new Pair.Pair(item);
        }
    }
    else
        onError('Expected a sequence for this tag');
    return seq;
}
function createPairs(schema, iterable, ctx) {
    const { replacer } = ctx;
    const pairs = new YAMLSeq.YAMLSeq(schema);
    pairs.tag = 'tag:yaml.org,2002:pairs';
    let i = 0;
    if (iterable && Symbol.iterator in Object(iterable))
        for (let it of iterable) {
            if (typeof replacer === 'function')
                it = replacer.call(iterable, String(i++), it);
            let key, value;
            if (Array.isArray(it)) {
                if (it.length === 2) {
                    key = it[0];
                    value = it[1];
                }
                else
                    throw new TypeError(`Expected [key, value] tuple: ${it}`);
            }
            else if (it && it instanceof Object) {
                const keys = Object.keys(it);
                if (keys.length === 1) {
                    key = keys[0];
                    value = it[key];
                }
                else {
                    throw new TypeError(`Expected tuple with one key, not ${keys.length} keys`);
                }
            }
            else {
                key = it;
            }
            pairs.items.push(Pair.createPair(key, value, ctx));
        }
    return pairs;
}
const pairs = {
    collection: 'seq',
    default: false,
    tag: 'tag:yaml.org,2002:pairs',
    resolve: resolvePairs,
    createNode: createPairs
};

exports.createPairs = createPairs;
exports.pairs = pairs;
exports.resolvePairs = resolvePairs;


/***/ }),

/***/ 5913:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var map = __nccwpck_require__(7451);
var _null = __nccwpck_require__(3632);
var seq = __nccwpck_require__(1706);
var string = __nccwpck_require__(6464);
var binary = __nccwpck_require__(6083);
var bool = __nccwpck_require__(8398);
var float = __nccwpck_require__(5782);
var int = __nccwpck_require__(873);
var merge = __nccwpck_require__(452);
var omap = __nccwpck_require__(303);
var pairs = __nccwpck_require__(8385);
var set = __nccwpck_require__(1528);
var timestamp = __nccwpck_require__(6752);

const schema = [
    map.map,
    seq.seq,
    string.string,
    _null.nullTag,
    bool.trueTag,
    bool.falseTag,
    int.intBin,
    int.intOct,
    int.int,
    int.intHex,
    float.floatNaN,
    float.floatExp,
    float.float,
    binary.binary,
    merge.merge,
    omap.omap,
    pairs.pairs,
    set.set,
    timestamp.intTime,
    timestamp.floatTime,
    timestamp.timestamp
];

exports.schema = schema;


/***/ }),

/***/ 1528:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var YAMLMap = __nccwpck_require__(4454);

class YAMLSet extends YAMLMap.YAMLMap {
    constructor(schema) {
        super(schema);
        this.tag = YAMLSet.tag;
    }
    add(key) {
        let pair;
        if (identity.isPair(key))
            pair = key;
        else if (key &&
            typeof key === 'object' &&
            'key' in key &&
            'value' in key &&
            key.value === null)
            pair = new Pair.Pair(key.key, null);
        else
            pair = new Pair.Pair(key, null);
        const prev = YAMLMap.findPair(this.items, pair.key);
        if (!prev)
            this.items.push(pair);
    }
    /**
     * If `keepPair` is `true`, returns the Pair matching `key`.
     * Otherwise, returns the value of that Pair's key.
     */
    get(key, keepPair) {
        const pair = YAMLMap.findPair(this.items, key);
        return !keepPair && identity.isPair(pair)
            ? identity.isScalar(pair.key)
                ? pair.key.value
                : pair.key
            : pair;
    }
    set(key, value) {
        if (typeof value !== 'boolean')
            throw new Error(`Expected boolean value for set(key, value) in a YAML set, not ${typeof value}`);
        const prev = YAMLMap.findPair(this.items, key);
        if (prev && !value) {
            this.items.splice(this.items.indexOf(prev), 1);
        }
        else if (!prev && value) {
            this.items.push(new Pair.Pair(key));
        }
    }
    toJSON(_, ctx) {
        return super.toJSON(_, ctx, Set);
    }
    toString(ctx, onComment, onChompKeep) {
        if (!ctx)
            return JSON.stringify(this);
        if (this.hasAllNullValues(true))
            return super.toString(Object.assign({}, ctx, { allNullValues: true }), onComment, onChompKeep);
        else
            throw new Error('Set items must all have null values');
    }
    static from(schema, iterable, ctx) {
        const { replacer } = ctx;
        const set = new this(schema);
        if (iterable && Symbol.iterator in Object(iterable))
            for (let value of iterable) {
                if (typeof replacer === 'function')
                    value = replacer.call(iterable, value, value);
                set.items.push(Pair.createPair(value, null, ctx));
            }
        return set;
    }
}
YAMLSet.tag = 'tag:yaml.org,2002:set';
const set = {
    collection: 'map',
    identify: value => value instanceof Set,
    nodeClass: YAMLSet,
    default: false,
    tag: 'tag:yaml.org,2002:set',
    createNode: (schema, iterable, ctx) => YAMLSet.from(schema, iterable, ctx),
    resolve(map, onError) {
        if (identity.isMap(map)) {
            if (map.hasAllNullValues(true))
                return Object.assign(new YAMLSet(), map);
            else
                onError('Set items must all have null values');
        }
        else
            onError('Expected a mapping for this tag');
        return map;
    }
};

exports.YAMLSet = YAMLSet;
exports.set = set;


/***/ }),

/***/ 6752:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyNumber = __nccwpck_require__(8689);

/** Internal types handle bigint as number, because TS can't figure it out. */
function parseSexagesimal(str, asBigInt) {
    const sign = str[0];
    const parts = sign === '-' || sign === '+' ? str.substring(1) : str;
    const num = (n) => asBigInt ? BigInt(n) : Number(n);
    const res = parts
        .replace(/_/g, '')
        .split(':')
        .reduce((res, p) => res * num(60) + num(p), num(0));
    return (sign === '-' ? num(-1) * res : res);
}
/**
 * hhhh:mm:ss.sss
 *
 * Internal types handle bigint as number, because TS can't figure it out.
 */
function stringifySexagesimal(node) {
    let { value } = node;
    let num = (n) => n;
    if (typeof value === 'bigint')
        num = n => BigInt(n);
    else if (isNaN(value) || !isFinite(value))
        return stringifyNumber.stringifyNumber(node);
    let sign = '';
    if (value < 0) {
        sign = '-';
        value *= num(-1);
    }
    const _60 = num(60);
    const parts = [value % _60]; // seconds, including ms
    if (value < 60) {
        parts.unshift(0); // at least one : is required
    }
    else {
        value = (value - parts[0]) / _60;
        parts.unshift(value % _60); // minutes
        if (value >= 60) {
            value = (value - parts[0]) / _60;
            parts.unshift(value); // hours
        }
    }
    return (sign +
        parts
            .map(n => String(n).padStart(2, '0'))
            .join(':')
            .replace(/000000\d*$/, '') // % 60 may introduce error
    );
}
const intTime = {
    identify: value => typeof value === 'bigint' || Number.isInteger(value),
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'TIME',
    test: /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+$/,
    resolve: (str, _onError, { intAsBigInt }) => parseSexagesimal(str, intAsBigInt),
    stringify: stringifySexagesimal
};
const floatTime = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    format: 'TIME',
    test: /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/,
    resolve: str => parseSexagesimal(str, false),
    stringify: stringifySexagesimal
};
const timestamp = {
    identify: value => value instanceof Date,
    default: true,
    tag: 'tag:yaml.org,2002:timestamp',
    // If the time zone is omitted, the timestamp is assumed to be specified in UTC. The time part
    // may be omitted altogether, resulting in a date format. In such a case, the time part is
    // assumed to be 00:00:00Z (start of day, UTC).
    test: RegExp('^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})' + // YYYY-Mm-Dd
        '(?:' + // time is optional
        '(?:t|T|[ \\t]+)' + // t | T | whitespace
        '([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\\.[0-9]+)?)' + // Hh:Mm:Ss(.ss)?
        '(?:[ \\t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?' + // Z | +5 | -03:30
        ')?$'),
    resolve(str) {
        const match = str.match(timestamp.test);
        if (!match)
            throw new Error('!!timestamp expects a date, starting with yyyy-mm-dd');
        const [, year, month, day, hour, minute, second] = match.map(Number);
        const millisec = match[7] ? Number((match[7] + '00').substr(1, 3)) : 0;
        let date = Date.UTC(year, month - 1, day, hour || 0, minute || 0, second || 0, millisec);
        const tz = match[8];
        if (tz && tz !== 'Z') {
            let d = parseSexagesimal(tz, false);
            if (Math.abs(d) < 30)
                d *= 60;
            date -= 60000 * d;
        }
        return new Date(date);
    },
    stringify: ({ value }) => value?.toISOString().replace(/(T00:00:00)?\.000Z$/, '') ?? ''
};

exports.floatTime = floatTime;
exports.intTime = intTime;
exports.timestamp = timestamp;


/***/ }),

/***/ 4475:
/***/ ((__unused_webpack_module, exports) => {



const FOLD_FLOW = 'flow';
const FOLD_BLOCK = 'block';
const FOLD_QUOTED = 'quoted';
/**
 * Tries to keep input at up to `lineWidth` characters, splitting only on spaces
 * not followed by newlines or spaces unless `mode` is `'quoted'`. Lines are
 * terminated with `\n` and started with `indent`.
 */
function foldFlowLines(text, indent, mode = 'flow', { indentAtStart, lineWidth = 80, minContentWidth = 20, onFold, onOverflow } = {}) {
    if (!lineWidth || lineWidth < 0)
        return text;
    if (lineWidth < minContentWidth)
        minContentWidth = 0;
    const endStep = Math.max(1 + minContentWidth, 1 + lineWidth - indent.length);
    if (text.length <= endStep)
        return text;
    const folds = [];
    const escapedFolds = {};
    let end = lineWidth - indent.length;
    if (typeof indentAtStart === 'number') {
        if (indentAtStart > lineWidth - Math.max(2, minContentWidth))
            folds.push(0);
        else
            end = lineWidth - indentAtStart;
    }
    let split = undefined;
    let prev = undefined;
    let overflow = false;
    let i = -1;
    let escStart = -1;
    let escEnd = -1;
    if (mode === FOLD_BLOCK) {
        i = consumeMoreIndentedLines(text, i, indent.length);
        if (i !== -1)
            end = i + endStep;
    }
    for (let ch; (ch = text[(i += 1)]);) {
        if (mode === FOLD_QUOTED && ch === '\\') {
            escStart = i;
            switch (text[i + 1]) {
                case 'x':
                    i += 3;
                    break;
                case 'u':
                    i += 5;
                    break;
                case 'U':
                    i += 9;
                    break;
                default:
                    i += 1;
            }
            escEnd = i;
        }
        if (ch === '\n') {
            if (mode === FOLD_BLOCK)
                i = consumeMoreIndentedLines(text, i, indent.length);
            end = i + indent.length + endStep;
            split = undefined;
        }
        else {
            if (ch === ' ' &&
                prev &&
                prev !== ' ' &&
                prev !== '\n' &&
                prev !== '\t') {
                // space surrounded by non-space can be replaced with newline + indent
                const next = text[i + 1];
                if (next && next !== ' ' && next !== '\n' && next !== '\t')
                    split = i;
            }
            if (i >= end) {
                if (split) {
                    folds.push(split);
                    end = split + endStep;
                    split = undefined;
                }
                else if (mode === FOLD_QUOTED) {
                    // white-space collected at end may stretch past lineWidth
                    while (prev === ' ' || prev === '\t') {
                        prev = ch;
                        ch = text[(i += 1)];
                        overflow = true;
                    }
                    // Account for newline escape, but don't break preceding escape
                    const j = i > escEnd + 1 ? i - 2 : escStart - 1;
                    // Bail out if lineWidth & minContentWidth are shorter than an escape string
                    if (escapedFolds[j])
                        return text;
                    folds.push(j);
                    escapedFolds[j] = true;
                    end = j + endStep;
                    split = undefined;
                }
                else {
                    overflow = true;
                }
            }
        }
        prev = ch;
    }
    if (overflow && onOverflow)
        onOverflow();
    if (folds.length === 0)
        return text;
    if (onFold)
        onFold();
    let res = text.slice(0, folds[0]);
    for (let i = 0; i < folds.length; ++i) {
        const fold = folds[i];
        const end = folds[i + 1] || text.length;
        if (fold === 0)
            res = `\n${indent}${text.slice(0, end)}`;
        else {
            if (mode === FOLD_QUOTED && escapedFolds[fold])
                res += `${text[fold]}\\`;
            res += `\n${indent}${text.slice(fold + 1, end)}`;
        }
    }
    return res;
}
/**
 * Presumes `i + 1` is at the start of a line
 * @returns index of last newline in more-indented block
 */
function consumeMoreIndentedLines(text, i, indent) {
    let end = i;
    let start = i + 1;
    let ch = text[start];
    while (ch === ' ' || ch === '\t') {
        if (i < start + indent) {
            ch = text[++i];
        }
        else {
            do {
                ch = text[++i];
            } while (ch && ch !== '\n');
            end = i;
            start = i + 1;
            ch = text[start];
        }
    }
    return end;
}

exports.FOLD_BLOCK = FOLD_BLOCK;
exports.FOLD_FLOW = FOLD_FLOW;
exports.FOLD_QUOTED = FOLD_QUOTED;
exports.foldFlowLines = foldFlowLines;


/***/ }),

/***/ 2148:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var anchors = __nccwpck_require__(1596);
var identity = __nccwpck_require__(1127);
var stringifyComment = __nccwpck_require__(9799);
var stringifyString = __nccwpck_require__(3069);

function createStringifyContext(doc, options) {
    const opt = Object.assign({
        blockQuote: true,
        commentString: stringifyComment.stringifyComment,
        defaultKeyType: null,
        defaultStringType: 'PLAIN',
        directives: null,
        doubleQuotedAsJSON: false,
        doubleQuotedMinMultiLineLength: 40,
        falseStr: 'false',
        flowCollectionPadding: true,
        indentSeq: true,
        lineWidth: 80,
        minContentWidth: 20,
        nullStr: 'null',
        simpleKeys: false,
        singleQuote: null,
        trailingComma: false,
        trueStr: 'true',
        verifyAliasOrder: true
    }, doc.schema.toStringOptions, options);
    let inFlow;
    switch (opt.collectionStyle) {
        case 'block':
            inFlow = false;
            break;
        case 'flow':
            inFlow = true;
            break;
        default:
            inFlow = null;
    }
    return {
        anchors: new Set(),
        doc,
        flowCollectionPadding: opt.flowCollectionPadding ? ' ' : '',
        indent: '',
        indentStep: typeof opt.indent === 'number' ? ' '.repeat(opt.indent) : '  ',
        inFlow,
        options: opt
    };
}
function getTagObject(tags, item) {
    if (item.tag) {
        const match = tags.filter(t => t.tag === item.tag);
        if (match.length > 0)
            return match.find(t => t.format === item.format) ?? match[0];
    }
    let tagObj = undefined;
    let obj;
    if (identity.isScalar(item)) {
        obj = item.value;
        let match = tags.filter(t => t.identify?.(obj));
        if (match.length > 1) {
            const testMatch = match.filter(t => t.test);
            if (testMatch.length > 0)
                match = testMatch;
        }
        tagObj =
            match.find(t => t.format === item.format) ?? match.find(t => !t.format);
    }
    else {
        obj = item;
        tagObj = tags.find(t => t.nodeClass && obj instanceof t.nodeClass);
    }
    if (!tagObj) {
        const name = obj?.constructor?.name ?? (obj === null ? 'null' : typeof obj);
        throw new Error(`Tag not resolved for ${name} value`);
    }
    return tagObj;
}
// needs to be called before value stringifier to allow for circular anchor refs
function stringifyProps(node, tagObj, { anchors: anchors$1, doc }) {
    if (!doc.directives)
        return '';
    const props = [];
    const anchor = (identity.isScalar(node) || identity.isCollection(node)) && node.anchor;
    if (anchor && anchors.anchorIsValid(anchor)) {
        anchors$1.add(anchor);
        props.push(`&${anchor}`);
    }
    const tag = node.tag ?? (tagObj.default ? null : tagObj.tag);
    if (tag)
        props.push(doc.directives.tagString(tag));
    return props.join(' ');
}
function stringify(item, ctx, onComment, onChompKeep) {
    if (identity.isPair(item))
        return item.toString(ctx, onComment, onChompKeep);
    if (identity.isAlias(item)) {
        if (ctx.doc.directives)
            return item.toString(ctx);
        if (ctx.resolvedAliases?.has(item)) {
            throw new TypeError(`Cannot stringify circular structure without alias nodes`);
        }
        else {
            if (ctx.resolvedAliases)
                ctx.resolvedAliases.add(item);
            else
                ctx.resolvedAliases = new Set([item]);
            item = item.resolve(ctx.doc);
        }
    }
    let tagObj = undefined;
    const node = identity.isNode(item)
        ? item
        : ctx.doc.createNode(item, { onTagObj: o => (tagObj = o) });
    tagObj ?? (tagObj = getTagObject(ctx.doc.schema.tags, node));
    const props = stringifyProps(node, tagObj, ctx);
    if (props.length > 0)
        ctx.indentAtStart = (ctx.indentAtStart ?? 0) + props.length + 1;
    const str = typeof tagObj.stringify === 'function'
        ? tagObj.stringify(node, ctx, onComment, onChompKeep)
        : identity.isScalar(node)
            ? stringifyString.stringifyString(node, ctx, onComment, onChompKeep)
            : node.toString(ctx, onComment, onChompKeep);
    if (!props)
        return str;
    return identity.isScalar(node) || str[0] === '{' || str[0] === '['
        ? `${props} ${str}`
        : `${props}\n${ctx.indent}${str}`;
}

exports.createStringifyContext = createStringifyContext;
exports.stringify = stringify;


/***/ }),

/***/ 1212:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var stringify = __nccwpck_require__(2148);
var stringifyComment = __nccwpck_require__(9799);

function stringifyCollection(collection, ctx, options) {
    const flow = ctx.inFlow ?? collection.flow;
    const stringify = flow ? stringifyFlowCollection : stringifyBlockCollection;
    return stringify(collection, ctx, options);
}
function stringifyBlockCollection({ comment, items }, ctx, { blockItemPrefix, flowChars, itemIndent, onChompKeep, onComment }) {
    const { indent, options: { commentString } } = ctx;
    const itemCtx = Object.assign({}, ctx, { indent: itemIndent, type: null });
    let chompKeep = false; // flag for the preceding node's status
    const lines = [];
    for (let i = 0; i < items.length; ++i) {
        const item = items[i];
        let comment = null;
        if (identity.isNode(item)) {
            if (!chompKeep && item.spaceBefore)
                lines.push('');
            addCommentBefore(ctx, lines, item.commentBefore, chompKeep);
            if (item.comment)
                comment = item.comment;
        }
        else if (identity.isPair(item)) {
            const ik = identity.isNode(item.key) ? item.key : null;
            if (ik) {
                if (!chompKeep && ik.spaceBefore)
                    lines.push('');
                addCommentBefore(ctx, lines, ik.commentBefore, chompKeep);
            }
        }
        chompKeep = false;
        let str = stringify.stringify(item, itemCtx, () => (comment = null), () => (chompKeep = true));
        if (comment)
            str += stringifyComment.lineComment(str, itemIndent, commentString(comment));
        if (chompKeep && comment)
            chompKeep = false;
        lines.push(blockItemPrefix + str);
    }
    let str;
    if (lines.length === 0) {
        str = flowChars.start + flowChars.end;
    }
    else {
        str = lines[0];
        for (let i = 1; i < lines.length; ++i) {
            const line = lines[i];
            str += line ? `\n${indent}${line}` : '\n';
        }
    }
    if (comment) {
        str += '\n' + stringifyComment.indentComment(commentString(comment), indent);
        if (onComment)
            onComment();
    }
    else if (chompKeep && onChompKeep)
        onChompKeep();
    return str;
}
function stringifyFlowCollection({ items }, ctx, { flowChars, itemIndent }) {
    const { indent, indentStep, flowCollectionPadding: fcPadding, options: { commentString } } = ctx;
    itemIndent += indentStep;
    const itemCtx = Object.assign({}, ctx, {
        indent: itemIndent,
        inFlow: true,
        type: null
    });
    let reqNewline = false;
    let linesAtValue = 0;
    const lines = [];
    for (let i = 0; i < items.length; ++i) {
        const item = items[i];
        let comment = null;
        if (identity.isNode(item)) {
            if (item.spaceBefore)
                lines.push('');
            addCommentBefore(ctx, lines, item.commentBefore, false);
            if (item.comment)
                comment = item.comment;
        }
        else if (identity.isPair(item)) {
            const ik = identity.isNode(item.key) ? item.key : null;
            if (ik) {
                if (ik.spaceBefore)
                    lines.push('');
                addCommentBefore(ctx, lines, ik.commentBefore, false);
                if (ik.comment)
                    reqNewline = true;
            }
            const iv = identity.isNode(item.value) ? item.value : null;
            if (iv) {
                if (iv.comment)
                    comment = iv.comment;
                if (iv.commentBefore)
                    reqNewline = true;
            }
            else if (item.value == null && ik?.comment) {
                comment = ik.comment;
            }
        }
        if (comment)
            reqNewline = true;
        let str = stringify.stringify(item, itemCtx, () => (comment = null));
        reqNewline || (reqNewline = lines.length > linesAtValue || str.includes('\n'));
        if (i < items.length - 1) {
            str += ',';
        }
        else if (ctx.options.trailingComma) {
            if (ctx.options.lineWidth > 0) {
                reqNewline || (reqNewline = lines.reduce((sum, line) => sum + line.length + 2, 2) +
                    (str.length + 2) >
                    ctx.options.lineWidth);
            }
            if (reqNewline) {
                str += ',';
            }
        }
        if (comment)
            str += stringifyComment.lineComment(str, itemIndent, commentString(comment));
        lines.push(str);
        linesAtValue = lines.length;
    }
    const { start, end } = flowChars;
    if (lines.length === 0) {
        return start + end;
    }
    else {
        if (!reqNewline) {
            const len = lines.reduce((sum, line) => sum + line.length + 2, 2);
            reqNewline = ctx.options.lineWidth > 0 && len > ctx.options.lineWidth;
        }
        if (reqNewline) {
            let str = start;
            for (const line of lines)
                str += line ? `\n${indentStep}${indent}${line}` : '\n';
            return `${str}\n${indent}${end}`;
        }
        else {
            return `${start}${fcPadding}${lines.join(' ')}${fcPadding}${end}`;
        }
    }
}
function addCommentBefore({ indent, options: { commentString } }, lines, comment, chompKeep) {
    if (comment && chompKeep)
        comment = comment.replace(/^\n+/, '');
    if (comment) {
        const ic = stringifyComment.indentComment(commentString(comment), indent);
        lines.push(ic.trimStart()); // Avoid double indent on first line
    }
}

exports.stringifyCollection = stringifyCollection;


/***/ }),

/***/ 9799:
/***/ ((__unused_webpack_module, exports) => {



/**
 * Stringifies a comment.
 *
 * Empty comment lines are left empty,
 * lines consisting of a single space are replaced by `#`,
 * and all other lines are prefixed with a `#`.
 */
const stringifyComment = (str) => str.replace(/^(?!$)(?: $)?/gm, '#');
function indentComment(comment, indent) {
    if (/^\n+$/.test(comment))
        return comment.substring(1);
    return indent ? comment.replace(/^(?! *$)/gm, indent) : comment;
}
const lineComment = (str, indent, comment) => str.endsWith('\n')
    ? indentComment(comment, indent)
    : comment.includes('\n')
        ? '\n' + indentComment(comment, indent)
        : (str.endsWith(' ') ? '' : ' ') + comment;

exports.indentComment = indentComment;
exports.lineComment = lineComment;
exports.stringifyComment = stringifyComment;


/***/ }),

/***/ 6829:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var stringify = __nccwpck_require__(2148);
var stringifyComment = __nccwpck_require__(9799);

function stringifyDocument(doc, options) {
    const lines = [];
    let hasDirectives = options.directives === true;
    if (options.directives !== false && doc.directives) {
        const dir = doc.directives.toString(doc);
        if (dir) {
            lines.push(dir);
            hasDirectives = true;
        }
        else if (doc.directives.docStart)
            hasDirectives = true;
    }
    if (hasDirectives)
        lines.push('---');
    const ctx = stringify.createStringifyContext(doc, options);
    const { commentString } = ctx.options;
    if (doc.commentBefore) {
        if (lines.length !== 1)
            lines.unshift('');
        const cs = commentString(doc.commentBefore);
        lines.unshift(stringifyComment.indentComment(cs, ''));
    }
    let chompKeep = false;
    let contentComment = null;
    if (doc.contents) {
        if (identity.isNode(doc.contents)) {
            if (doc.contents.spaceBefore && hasDirectives)
                lines.push('');
            if (doc.contents.commentBefore) {
                const cs = commentString(doc.contents.commentBefore);
                lines.push(stringifyComment.indentComment(cs, ''));
            }
            // top-level block scalars need to be indented if followed by a comment
            ctx.forceBlockIndent = !!doc.comment;
            contentComment = doc.contents.comment;
        }
        const onChompKeep = contentComment ? undefined : () => (chompKeep = true);
        let body = stringify.stringify(doc.contents, ctx, () => (contentComment = null), onChompKeep);
        if (contentComment)
            body += stringifyComment.lineComment(body, '', commentString(contentComment));
        if ((body[0] === '|' || body[0] === '>') &&
            lines[lines.length - 1] === '---') {
            // Top-level block scalars with a preceding doc marker ought to use the
            // same line for their header.
            lines[lines.length - 1] = `--- ${body}`;
        }
        else
            lines.push(body);
    }
    else {
        lines.push(stringify.stringify(doc.contents, ctx));
    }
    if (doc.directives?.docEnd) {
        if (doc.comment) {
            const cs = commentString(doc.comment);
            if (cs.includes('\n')) {
                lines.push('...');
                lines.push(stringifyComment.indentComment(cs, ''));
            }
            else {
                lines.push(`... ${cs}`);
            }
        }
        else {
            lines.push('...');
        }
    }
    else {
        let dc = doc.comment;
        if (dc && chompKeep)
            dc = dc.replace(/^\n+/, '');
        if (dc) {
            if ((!chompKeep || contentComment) && lines[lines.length - 1] !== '')
                lines.push('');
            lines.push(stringifyComment.indentComment(commentString(dc), ''));
        }
    }
    return lines.join('\n') + '\n';
}

exports.stringifyDocument = stringifyDocument;


/***/ }),

/***/ 8689:
/***/ ((__unused_webpack_module, exports) => {



function stringifyNumber({ format, minFractionDigits, tag, value }) {
    if (typeof value === 'bigint')
        return String(value);
    const num = typeof value === 'number' ? value : Number(value);
    if (!isFinite(num))
        return isNaN(num) ? '.nan' : num < 0 ? '-.inf' : '.inf';
    let n = Object.is(value, -0) ? '-0' : JSON.stringify(value);
    if (!format &&
        minFractionDigits &&
        (!tag || tag === 'tag:yaml.org,2002:float') &&
        /^-?\d/.test(n) &&
        !n.includes('e')) {
        let i = n.indexOf('.');
        if (i < 0) {
            i = n.length;
            n += '.';
        }
        let d = minFractionDigits - (n.length - i - 1);
        while (d-- > 0)
            n += '0';
    }
    return n;
}

exports.stringifyNumber = stringifyNumber;


/***/ }),

/***/ 9748:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);
var stringify = __nccwpck_require__(2148);
var stringifyComment = __nccwpck_require__(9799);

function stringifyPair({ key, value }, ctx, onComment, onChompKeep) {
    const { allNullValues, doc, indent, indentStep, options: { commentString, indentSeq, simpleKeys } } = ctx;
    let keyComment = (identity.isNode(key) && key.comment) || null;
    if (simpleKeys) {
        if (keyComment) {
            throw new Error('With simple keys, key nodes cannot have comments');
        }
        if (identity.isCollection(key) || (!identity.isNode(key) && typeof key === 'object')) {
            const msg = 'With simple keys, collection cannot be used as a key value';
            throw new Error(msg);
        }
    }
    let explicitKey = !simpleKeys &&
        (!key ||
            (keyComment && value == null && !ctx.inFlow) ||
            identity.isCollection(key) ||
            (identity.isScalar(key)
                ? key.type === Scalar.Scalar.BLOCK_FOLDED || key.type === Scalar.Scalar.BLOCK_LITERAL
                : typeof key === 'object'));
    ctx = Object.assign({}, ctx, {
        allNullValues: false,
        implicitKey: !explicitKey && (simpleKeys || !allNullValues),
        indent: indent + indentStep
    });
    let keyCommentDone = false;
    let chompKeep = false;
    let str = stringify.stringify(key, ctx, () => (keyCommentDone = true), () => (chompKeep = true));
    if (!explicitKey && !ctx.inFlow && str.length > 1024) {
        if (simpleKeys)
            throw new Error('With simple keys, single line scalar must not span more than 1024 characters');
        explicitKey = true;
    }
    if (ctx.inFlow) {
        if (allNullValues || value == null) {
            if (keyCommentDone && onComment)
                onComment();
            return str === '' ? '?' : explicitKey ? `? ${str}` : str;
        }
    }
    else if ((allNullValues && !simpleKeys) || (value == null && explicitKey)) {
        str = `? ${str}`;
        if (keyComment && !keyCommentDone) {
            str += stringifyComment.lineComment(str, ctx.indent, commentString(keyComment));
        }
        else if (chompKeep && onChompKeep)
            onChompKeep();
        return str;
    }
    if (keyCommentDone)
        keyComment = null;
    if (explicitKey) {
        if (keyComment)
            str += stringifyComment.lineComment(str, ctx.indent, commentString(keyComment));
        str = `? ${str}\n${indent}:`;
    }
    else {
        str = `${str}:`;
        if (keyComment)
            str += stringifyComment.lineComment(str, ctx.indent, commentString(keyComment));
    }
    let vsb, vcb, valueComment;
    if (identity.isNode(value)) {
        vsb = !!value.spaceBefore;
        vcb = value.commentBefore;
        valueComment = value.comment;
    }
    else {
        vsb = false;
        vcb = null;
        valueComment = null;
        if (value && typeof value === 'object')
            value = doc.createNode(value);
    }
    ctx.implicitKey = false;
    if (!explicitKey && !keyComment && identity.isScalar(value))
        ctx.indentAtStart = str.length + 1;
    chompKeep = false;
    if (!indentSeq &&
        indentStep.length >= 2 &&
        !ctx.inFlow &&
        !explicitKey &&
        identity.isSeq(value) &&
        !value.flow &&
        !value.tag &&
        !value.anchor) {
        // If indentSeq === false, consider '- ' as part of indentation where possible
        ctx.indent = ctx.indent.substring(2);
    }
    let valueCommentDone = false;
    const valueStr = stringify.stringify(value, ctx, () => (valueCommentDone = true), () => (chompKeep = true));
    let ws = ' ';
    if (keyComment || vsb || vcb) {
        ws = vsb ? '\n' : '';
        if (vcb) {
            const cs = commentString(vcb);
            ws += `\n${stringifyComment.indentComment(cs, ctx.indent)}`;
        }
        if (valueStr === '' && !ctx.inFlow) {
            if (ws === '\n' && valueComment)
                ws = '\n\n';
        }
        else {
            ws += `\n${ctx.indent}`;
        }
    }
    else if (!explicitKey && identity.isCollection(value)) {
        const vs0 = valueStr[0];
        const nl0 = valueStr.indexOf('\n');
        const hasNewline = nl0 !== -1;
        const flow = ctx.inFlow ?? value.flow ?? value.items.length === 0;
        if (hasNewline || !flow) {
            let hasPropsLine = false;
            if (hasNewline && (vs0 === '&' || vs0 === '!')) {
                let sp0 = valueStr.indexOf(' ');
                if (vs0 === '&' &&
                    sp0 !== -1 &&
                    sp0 < nl0 &&
                    valueStr[sp0 + 1] === '!') {
                    sp0 = valueStr.indexOf(' ', sp0 + 1);
                }
                if (sp0 === -1 || nl0 < sp0)
                    hasPropsLine = true;
            }
            if (!hasPropsLine)
                ws = `\n${ctx.indent}`;
        }
    }
    else if (valueStr === '' || valueStr[0] === '\n') {
        ws = '';
    }
    str += ws + valueStr;
    if (ctx.inFlow) {
        if (valueCommentDone && onComment)
            onComment();
    }
    else if (valueComment && !valueCommentDone) {
        str += stringifyComment.lineComment(str, ctx.indent, commentString(valueComment));
    }
    else if (chompKeep && onChompKeep) {
        onChompKeep();
    }
    return str;
}

exports.stringifyPair = stringifyPair;


/***/ }),

/***/ 3069:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var foldFlowLines = __nccwpck_require__(4475);

const getFoldOptions = (ctx, isBlock) => ({
    indentAtStart: isBlock ? ctx.indent.length : ctx.indentAtStart,
    lineWidth: ctx.options.lineWidth,
    minContentWidth: ctx.options.minContentWidth
});
// Also checks for lines starting with %, as parsing the output as YAML 1.1 will
// presume that's starting a new document.
const containsDocumentMarker = (str) => /^(%|---|\.\.\.)/m.test(str);
function lineLengthOverLimit(str, lineWidth, indentLength) {
    if (!lineWidth || lineWidth < 0)
        return false;
    const limit = lineWidth - indentLength;
    const strLen = str.length;
    if (strLen <= limit)
        return false;
    for (let i = 0, start = 0; i < strLen; ++i) {
        if (str[i] === '\n') {
            if (i - start > limit)
                return true;
            start = i + 1;
            if (strLen - start <= limit)
                return false;
        }
    }
    return true;
}
function doubleQuotedString(value, ctx) {
    const json = JSON.stringify(value);
    if (ctx.options.doubleQuotedAsJSON)
        return json;
    const { implicitKey } = ctx;
    const minMultiLineLength = ctx.options.doubleQuotedMinMultiLineLength;
    const indent = ctx.indent || (containsDocumentMarker(value) ? '  ' : '');
    let str = '';
    let start = 0;
    for (let i = 0, ch = json[i]; ch; ch = json[++i]) {
        if (ch === ' ' && json[i + 1] === '\\' && json[i + 2] === 'n') {
            // space before newline needs to be escaped to not be folded
            str += json.slice(start, i) + '\\ ';
            i += 1;
            start = i;
            ch = '\\';
        }
        if (ch === '\\')
            switch (json[i + 1]) {
                case 'u':
                    {
                        str += json.slice(start, i);
                        const code = json.substr(i + 2, 4);
                        switch (code) {
                            case '0000':
                                str += '\\0';
                                break;
                            case '0007':
                                str += '\\a';
                                break;
                            case '000b':
                                str += '\\v';
                                break;
                            case '001b':
                                str += '\\e';
                                break;
                            case '0085':
                                str += '\\N';
                                break;
                            case '00a0':
                                str += '\\_';
                                break;
                            case '2028':
                                str += '\\L';
                                break;
                            case '2029':
                                str += '\\P';
                                break;
                            default:
                                if (code.substr(0, 2) === '00')
                                    str += '\\x' + code.substr(2);
                                else
                                    str += json.substr(i, 6);
                        }
                        i += 5;
                        start = i + 1;
                    }
                    break;
                case 'n':
                    if (implicitKey ||
                        json[i + 2] === '"' ||
                        json.length < minMultiLineLength) {
                        i += 1;
                    }
                    else {
                        // folding will eat first newline
                        str += json.slice(start, i) + '\n\n';
                        while (json[i + 2] === '\\' &&
                            json[i + 3] === 'n' &&
                            json[i + 4] !== '"') {
                            str += '\n';
                            i += 2;
                        }
                        str += indent;
                        // space after newline needs to be escaped to not be folded
                        if (json[i + 2] === ' ')
                            str += '\\';
                        i += 1;
                        start = i + 1;
                    }
                    break;
                default:
                    i += 1;
            }
    }
    str = start ? str + json.slice(start) : json;
    return implicitKey
        ? str
        : foldFlowLines.foldFlowLines(str, indent, foldFlowLines.FOLD_QUOTED, getFoldOptions(ctx, false));
}
function singleQuotedString(value, ctx) {
    if (ctx.options.singleQuote === false ||
        (ctx.implicitKey && value.includes('\n')) ||
        /[ \t]\n|\n[ \t]/.test(value) // single quoted string can't have leading or trailing whitespace around newline
    )
        return doubleQuotedString(value, ctx);
    const indent = ctx.indent || (containsDocumentMarker(value) ? '  ' : '');
    const res = "'" + value.replace(/'/g, "''").replace(/\n+/g, `$&\n${indent}`) + "'";
    return ctx.implicitKey
        ? res
        : foldFlowLines.foldFlowLines(res, indent, foldFlowLines.FOLD_FLOW, getFoldOptions(ctx, false));
}
function quotedString(value, ctx) {
    const { singleQuote } = ctx.options;
    let qs;
    if (singleQuote === false)
        qs = doubleQuotedString;
    else {
        const hasDouble = value.includes('"');
        const hasSingle = value.includes("'");
        if (hasDouble && !hasSingle)
            qs = singleQuotedString;
        else if (hasSingle && !hasDouble)
            qs = doubleQuotedString;
        else
            qs = singleQuote ? singleQuotedString : doubleQuotedString;
    }
    return qs(value, ctx);
}
// The negative lookbehind avoids a polynomial search,
// but isn't supported yet on Safari: https://caniuse.com/js-regexp-lookbehind
let blockEndNewlines;
try {
    blockEndNewlines = new RegExp('(^|(?<!\n))\n+(?!\n|$)', 'g');
}
catch {
    blockEndNewlines = /\n+(?!\n|$)/g;
}
function blockString({ comment, type, value }, ctx, onComment, onChompKeep) {
    const { blockQuote, commentString, lineWidth } = ctx.options;
    // 1. Block can't end in whitespace unless the last line is non-empty.
    // 2. Strings consisting of only whitespace are best rendered explicitly.
    if (!blockQuote || /\n[\t ]+$/.test(value)) {
        return quotedString(value, ctx);
    }
    const indent = ctx.indent ||
        (ctx.forceBlockIndent || containsDocumentMarker(value) ? '  ' : '');
    const literal = blockQuote === 'literal'
        ? true
        : blockQuote === 'folded' || type === Scalar.Scalar.BLOCK_FOLDED
            ? false
            : type === Scalar.Scalar.BLOCK_LITERAL
                ? true
                : !lineLengthOverLimit(value, lineWidth, indent.length);
    if (!value)
        return literal ? '|\n' : '>\n';
    // determine chomping from whitespace at value end
    let chomp;
    let endStart;
    for (endStart = value.length; endStart > 0; --endStart) {
        const ch = value[endStart - 1];
        if (ch !== '\n' && ch !== '\t' && ch !== ' ')
            break;
    }
    let end = value.substring(endStart);
    const endNlPos = end.indexOf('\n');
    if (endNlPos === -1) {
        chomp = '-'; // strip
    }
    else if (value === end || endNlPos !== end.length - 1) {
        chomp = '+'; // keep
        if (onChompKeep)
            onChompKeep();
    }
    else {
        chomp = ''; // clip
    }
    if (end) {
        value = value.slice(0, -end.length);
        if (end[end.length - 1] === '\n')
            end = end.slice(0, -1);
        end = end.replace(blockEndNewlines, `$&${indent}`);
    }
    // determine indent indicator from whitespace at value start
    let startWithSpace = false;
    let startEnd;
    let startNlPos = -1;
    for (startEnd = 0; startEnd < value.length; ++startEnd) {
        const ch = value[startEnd];
        if (ch === ' ')
            startWithSpace = true;
        else if (ch === '\n')
            startNlPos = startEnd;
        else
            break;
    }
    let start = value.substring(0, startNlPos < startEnd ? startNlPos + 1 : startEnd);
    if (start) {
        value = value.substring(start.length);
        start = start.replace(/\n+/g, `$&${indent}`);
    }
    const indentSize = indent ? '2' : '1'; // root is at -1
    // Leading | or > is added later
    let header = (startWithSpace ? indentSize : '') + chomp;
    if (comment) {
        header += ' ' + commentString(comment.replace(/ ?[\r\n]+/g, ' '));
        if (onComment)
            onComment();
    }
    if (!literal) {
        const foldedValue = value
            .replace(/\n+/g, '\n$&')
            .replace(/(?:^|\n)([\t ].*)(?:([\n\t ]*)\n(?![\n\t ]))?/g, '$1$2') // more-indented lines aren't folded
            //                ^ more-ind. ^ empty     ^ capture next empty lines only at end of indent
            .replace(/\n+/g, `$&${indent}`);
        let literalFallback = false;
        const foldOptions = getFoldOptions(ctx, true);
        if (blockQuote !== 'folded' && type !== Scalar.Scalar.BLOCK_FOLDED) {
            foldOptions.onOverflow = () => {
                literalFallback = true;
            };
        }
        const body = foldFlowLines.foldFlowLines(`${start}${foldedValue}${end}`, indent, foldFlowLines.FOLD_BLOCK, foldOptions);
        if (!literalFallback)
            return `>${header}\n${indent}${body}`;
    }
    value = value.replace(/\n+/g, `$&${indent}`);
    return `|${header}\n${indent}${start}${value}${end}`;
}
function plainString(item, ctx, onComment, onChompKeep) {
    const { type, value } = item;
    const { actualString, implicitKey, indent, indentStep, inFlow } = ctx;
    if ((implicitKey && value.includes('\n')) ||
        (inFlow && /[[\]{},]/.test(value))) {
        return quotedString(value, ctx);
    }
    if (/^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/.test(value)) {
        // not allowed:
        // - '-' or '?'
        // - start with an indicator character (except [?:-]) or /[?-] /
        // - '\n ', ': ' or ' \n' anywhere
        // - '#' not preceded by a non-space char
        // - end with ' ' or ':'
        return implicitKey || inFlow || !value.includes('\n')
            ? quotedString(value, ctx)
            : blockString(item, ctx, onComment, onChompKeep);
    }
    if (!implicitKey &&
        !inFlow &&
        type !== Scalar.Scalar.PLAIN &&
        value.includes('\n')) {
        // Where allowed & type not set explicitly, prefer block style for multiline strings
        return blockString(item, ctx, onComment, onChompKeep);
    }
    if (containsDocumentMarker(value)) {
        if (indent === '') {
            ctx.forceBlockIndent = true;
            return blockString(item, ctx, onComment, onChompKeep);
        }
        else if (implicitKey && indent === indentStep) {
            return quotedString(value, ctx);
        }
    }
    const str = value.replace(/\n+/g, `$&\n${indent}`);
    // Verify that output will be parsed as a string, as e.g. plain numbers and
    // booleans get parsed with those types in v1.2 (e.g. '42', 'true' & '0.9e-3'),
    // and others in v1.1.
    if (actualString) {
        const test = (tag) => tag.default && tag.tag !== 'tag:yaml.org,2002:str' && tag.test?.test(str);
        const { compat, tags } = ctx.doc.schema;
        if (tags.some(test) || compat?.some(test))
            return quotedString(value, ctx);
    }
    return implicitKey
        ? str
        : foldFlowLines.foldFlowLines(str, indent, foldFlowLines.FOLD_FLOW, getFoldOptions(ctx, false));
}
function stringifyString(item, ctx, onComment, onChompKeep) {
    const { implicitKey, inFlow } = ctx;
    const ss = typeof item.value === 'string'
        ? item
        : Object.assign({}, item, { value: String(item.value) });
    let { type } = item;
    if (type !== Scalar.Scalar.QUOTE_DOUBLE) {
        // force double quotes on control characters & unpaired surrogates
        if (/[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u.test(ss.value))
            type = Scalar.Scalar.QUOTE_DOUBLE;
    }
    const _stringify = (_type) => {
        switch (_type) {
            case Scalar.Scalar.BLOCK_FOLDED:
            case Scalar.Scalar.BLOCK_LITERAL:
                return implicitKey || inFlow
                    ? quotedString(ss.value, ctx) // blocks are not valid inside flow containers
                    : blockString(ss, ctx, onComment, onChompKeep);
            case Scalar.Scalar.QUOTE_DOUBLE:
                return doubleQuotedString(ss.value, ctx);
            case Scalar.Scalar.QUOTE_SINGLE:
                return singleQuotedString(ss.value, ctx);
            case Scalar.Scalar.PLAIN:
                return plainString(ss, ctx, onComment, onChompKeep);
            default:
                return null;
        }
    };
    let res = _stringify(type);
    if (res === null) {
        const { defaultKeyType, defaultStringType } = ctx.options;
        const t = (implicitKey && defaultKeyType) || defaultStringType;
        res = _stringify(t);
        if (res === null)
            throw new Error(`Unsupported default string type ${t}`);
    }
    return res;
}

exports.stringifyString = stringifyString;


/***/ }),

/***/ 204:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);

const BREAK = Symbol('break visit');
const SKIP = Symbol('skip children');
const REMOVE = Symbol('remove node');
/**
 * Apply a visitor to an AST node or document.
 *
 * Walks through the tree (depth-first) starting from `node`, calling a
 * `visitor` function with three arguments:
 *   - `key`: For sequence values and map `Pair`, the node's index in the
 *     collection. Within a `Pair`, `'key'` or `'value'`, correspondingly.
 *     `null` for the root node.
 *   - `node`: The current node.
 *   - `path`: The ancestry of the current node.
 *
 * The return value of the visitor may be used to control the traversal:
 *   - `undefined` (default): Do nothing and continue
 *   - `visit.SKIP`: Do not visit the children of this node, continue with next
 *     sibling
 *   - `visit.BREAK`: Terminate traversal completely
 *   - `visit.REMOVE`: Remove the current node, then continue with the next one
 *   - `Node`: Replace the current node, then continue by visiting it
 *   - `number`: While iterating the items of a sequence or map, set the index
 *     of the next step. This is useful especially if the index of the current
 *     node has changed.
 *
 * If `visitor` is a single function, it will be called with all values
 * encountered in the tree, including e.g. `null` values. Alternatively,
 * separate visitor functions may be defined for each `Map`, `Pair`, `Seq`,
 * `Alias` and `Scalar` node. To define the same visitor function for more than
 * one node type, use the `Collection` (map and seq), `Value` (map, seq & scalar)
 * and `Node` (alias, map, seq & scalar) targets. Of all these, only the most
 * specific defined one will be used for each node.
 */
function visit(node, visitor) {
    const visitor_ = initVisitor(visitor);
    if (identity.isDocument(node)) {
        const cd = visit_(null, node.contents, visitor_, Object.freeze([node]));
        if (cd === REMOVE)
            node.contents = null;
    }
    else
        visit_(null, node, visitor_, Object.freeze([]));
}
// Without the `as symbol` casts, TS declares these in the `visit`
// namespace using `var`, but then complains about that because
// `unique symbol` must be `const`.
/** Terminate visit traversal completely */
visit.BREAK = BREAK;
/** Do not visit the children of the current node */
visit.SKIP = SKIP;
/** Remove the current node */
visit.REMOVE = REMOVE;
function visit_(key, node, visitor, path) {
    const ctrl = callVisitor(key, node, visitor, path);
    if (identity.isNode(ctrl) || identity.isPair(ctrl)) {
        replaceNode(key, path, ctrl);
        return visit_(key, ctrl, visitor, path);
    }
    if (typeof ctrl !== 'symbol') {
        if (identity.isCollection(node)) {
            path = Object.freeze(path.concat(node));
            for (let i = 0; i < node.items.length; ++i) {
                const ci = visit_(i, node.items[i], visitor, path);
                if (typeof ci === 'number')
                    i = ci - 1;
                else if (ci === BREAK)
                    return BREAK;
                else if (ci === REMOVE) {
                    node.items.splice(i, 1);
                    i -= 1;
                }
            }
        }
        else if (identity.isPair(node)) {
            path = Object.freeze(path.concat(node));
            const ck = visit_('key', node.key, visitor, path);
            if (ck === BREAK)
                return BREAK;
            else if (ck === REMOVE)
                node.key = null;
            const cv = visit_('value', node.value, visitor, path);
            if (cv === BREAK)
                return BREAK;
            else if (cv === REMOVE)
                node.value = null;
        }
    }
    return ctrl;
}
/**
 * Apply an async visitor to an AST node or document.
 *
 * Walks through the tree (depth-first) starting from `node`, calling a
 * `visitor` function with three arguments:
 *   - `key`: For sequence values and map `Pair`, the node's index in the
 *     collection. Within a `Pair`, `'key'` or `'value'`, correspondingly.
 *     `null` for the root node.
 *   - `node`: The current node.
 *   - `path`: The ancestry of the current node.
 *
 * The return value of the visitor may be used to control the traversal:
 *   - `Promise`: Must resolve to one of the following values
 *   - `undefined` (default): Do nothing and continue
 *   - `visit.SKIP`: Do not visit the children of this node, continue with next
 *     sibling
 *   - `visit.BREAK`: Terminate traversal completely
 *   - `visit.REMOVE`: Remove the current node, then continue with the next one
 *   - `Node`: Replace the current node, then continue by visiting it
 *   - `number`: While iterating the items of a sequence or map, set the index
 *     of the next step. This is useful especially if the index of the current
 *     node has changed.
 *
 * If `visitor` is a single function, it will be called with all values
 * encountered in the tree, including e.g. `null` values. Alternatively,
 * separate visitor functions may be defined for each `Map`, `Pair`, `Seq`,
 * `Alias` and `Scalar` node. To define the same visitor function for more than
 * one node type, use the `Collection` (map and seq), `Value` (map, seq & scalar)
 * and `Node` (alias, map, seq & scalar) targets. Of all these, only the most
 * specific defined one will be used for each node.
 */
async function visitAsync(node, visitor) {
    const visitor_ = initVisitor(visitor);
    if (identity.isDocument(node)) {
        const cd = await visitAsync_(null, node.contents, visitor_, Object.freeze([node]));
        if (cd === REMOVE)
            node.contents = null;
    }
    else
        await visitAsync_(null, node, visitor_, Object.freeze([]));
}
// Without the `as symbol` casts, TS declares these in the `visit`
// namespace using `var`, but then complains about that because
// `unique symbol` must be `const`.
/** Terminate visit traversal completely */
visitAsync.BREAK = BREAK;
/** Do not visit the children of the current node */
visitAsync.SKIP = SKIP;
/** Remove the current node */
visitAsync.REMOVE = REMOVE;
async function visitAsync_(key, node, visitor, path) {
    const ctrl = await callVisitor(key, node, visitor, path);
    if (identity.isNode(ctrl) || identity.isPair(ctrl)) {
        replaceNode(key, path, ctrl);
        return visitAsync_(key, ctrl, visitor, path);
    }
    if (typeof ctrl !== 'symbol') {
        if (identity.isCollection(node)) {
            path = Object.freeze(path.concat(node));
            for (let i = 0; i < node.items.length; ++i) {
                const ci = await visitAsync_(i, node.items[i], visitor, path);
                if (typeof ci === 'number')
                    i = ci - 1;
                else if (ci === BREAK)
                    return BREAK;
                else if (ci === REMOVE) {
                    node.items.splice(i, 1);
                    i -= 1;
                }
            }
        }
        else if (identity.isPair(node)) {
            path = Object.freeze(path.concat(node));
            const ck = await visitAsync_('key', node.key, visitor, path);
            if (ck === BREAK)
                return BREAK;
            else if (ck === REMOVE)
                node.key = null;
            const cv = await visitAsync_('value', node.value, visitor, path);
            if (cv === BREAK)
                return BREAK;
            else if (cv === REMOVE)
                node.value = null;
        }
    }
    return ctrl;
}
function initVisitor(visitor) {
    if (typeof visitor === 'object' &&
        (visitor.Collection || visitor.Node || visitor.Value)) {
        return Object.assign({
            Alias: visitor.Node,
            Map: visitor.Node,
            Scalar: visitor.Node,
            Seq: visitor.Node
        }, visitor.Value && {
            Map: visitor.Value,
            Scalar: visitor.Value,
            Seq: visitor.Value
        }, visitor.Collection && {
            Map: visitor.Collection,
            Seq: visitor.Collection
        }, visitor);
    }
    return visitor;
}
function callVisitor(key, node, visitor, path) {
    if (typeof visitor === 'function')
        return visitor(key, node, path);
    if (identity.isMap(node))
        return visitor.Map?.(key, node, path);
    if (identity.isSeq(node))
        return visitor.Seq?.(key, node, path);
    if (identity.isPair(node))
        return visitor.Pair?.(key, node, path);
    if (identity.isScalar(node))
        return visitor.Scalar?.(key, node, path);
    if (identity.isAlias(node))
        return visitor.Alias?.(key, node, path);
    return undefined;
}
function replaceNode(key, path, node) {
    const parent = path[path.length - 1];
    if (identity.isCollection(parent)) {
        parent.items[key] = node;
    }
    else if (identity.isPair(parent)) {
        if (key === 'key')
            parent.key = node;
        else
            parent.value = node;
    }
    else if (identity.isDocument(parent)) {
        parent.contents = node;
    }
    else {
        const pt = identity.isAlias(parent) ? 'alias' : 'scalar';
        throw new Error(`Cannot replace node with ${pt} parent`);
    }
}

exports.visit = visit;
exports.visitAsync = visitAsync;


/***/ })

/******/ });
/************************************************************************/
/******/ // The module cache
/******/ var __webpack_module_cache__ = {};
/******/ 
/******/ // The require function
/******/ function __nccwpck_require__(moduleId) {
/******/ 	// Check if module is in cache
/******/ 	var cachedModule = __webpack_module_cache__[moduleId];
/******/ 	if (cachedModule !== undefined) {
/******/ 		return cachedModule.exports;
/******/ 	}
/******/ 	// Create a new module (and put it into the cache)
/******/ 	var module = __webpack_module_cache__[moduleId] = {
/******/ 		// no module.id needed
/******/ 		// no module.loaded needed
/******/ 		exports: {}
/******/ 	};
/******/ 
/******/ 	// Execute the module function
/******/ 	var threw = true;
/******/ 	try {
/******/ 		__webpack_modules__[moduleId](module, module.exports, __nccwpck_require__);
/******/ 		threw = false;
/******/ 	} finally {
/******/ 		if(threw) delete __webpack_module_cache__[moduleId];
/******/ 	}
/******/ 
/******/ 	// Return the exports of the module
/******/ 	return module.exports;
/******/ }
/******/ 
/************************************************************************/
/******/ /* webpack/runtime/asset-relocator-loader */
/******/ if (typeof __nccwpck_require__ !== 'undefined') __nccwpck_require__.ab = decodeURIComponent(new URL('.', import.meta.url).pathname).slice(import.meta.url.match(/^file:\/\/\/\w:/) ? 1 : 0, -1) + "/";
/******/ 
/******/ /* webpack/runtime/compat get default export */
/******/ (() => {
/******/ 	// getDefaultExport function for compatibility with non-harmony modules
/******/ 	__nccwpck_require__.n = (module) => {
/******/ 		var getter = module && module.__esModule ?
/******/ 			() => (module['default']) :
/******/ 			() => (module);
/******/ 		__nccwpck_require__.d(getter, { a: getter });
/******/ 		return getter;
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/define property getters */
/******/ (() => {
/******/ 	// define getter functions for harmony exports
/******/ 	__nccwpck_require__.d = (exports, definition) => {
/******/ 		for(var key in definition) {
/******/ 			if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 				Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 			}
/******/ 		}
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/hasOwnProperty shorthand */
/******/ (() => {
/******/ 	__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ })();
/******/ 
/************************************************************************/
var __webpack_exports__ = {};

;// CONCATENATED MODULE: external "node:os"
const external_node_os_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:os");
var external_node_os_default = /*#__PURE__*/__nccwpck_require__.n(external_node_os_namespaceObject);
;// CONCATENATED MODULE: ./src/text/ended.ts
// How a program ended, in words: `exit 1`, or `killed by SIGKILL` (never `exit null`).
/** `exit N`, `killed by SIGX`, or `did not start` when it has neither. */
function ended(run) {
    if (run.exitCode !== null)
        return `exit ${run.exitCode}`;
    return run.signal ? `killed by ${run.signal}` : 'did not start';
}

;// CONCATENATED MODULE: external "node:path"
const external_node_path_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:path");
var external_node_path_default = /*#__PURE__*/__nccwpck_require__.n(external_node_path_namespaceObject);
;// CONCATENATED MODULE: ./src/agents/argv.ts
// Reading and extending an agent's command line without ever duplicating what the user wrote.

/** Python's Path(argv0).stem: `/usr/bin/claude`, `claude.exe` and `claude.cmd` all give `claude`. */
function programStem(argv0) {
    if (!argv0)
        return '';
    const base = external_node_path_default().basename(argv0.replace(/\\/g, '/'));
    const dot = base.lastIndexOf('.');
    return dot > 0 ? base.slice(0, dot) : base;
}
/** Tokens before a lone `--` (after it everything is a positional argument). */
function optionsPart(argv) {
    const end = argv.indexOf('--');
    return end === -1 ? argv : argv.slice(0, end);
}
/** The user gave one of these options, as `--name`, `--name=value` or a short `-x` / `-xVALUE`. */
function hasOption(argv, names) {
    return optionsPart(argv.slice(1)).some(token => names.some(name => name.startsWith('--')
        ? token === name || token.startsWith(`${name}=`)
        : token === name || (token.startsWith(name) && !token.startsWith('--'))));
}
/** The value of `--name value`, `--name=value` or `-x value` (the last one wins, as CLIs read them). */
function optionValue(argv, names) {
    let value;
    const tokens = optionsPart(argv.slice(1));
    tokens.forEach((token, i) => {
        for (const name of names) {
            if (token === name && i + 1 < tokens.length)
                value = tokens[i + 1];
            else if (name.startsWith('--') && token.startsWith(`${name}=`))
                value = token.slice(name.length + 1);
        }
    });
    return value;
}
/** Index of the first token equal to one of `words` (a subcommand), before any `--`; -1 when absent. */
function subcommandIndex(argv, words) {
    const tokens = optionsPart(argv);
    for (let i = 1; i < tokens.length; i++)
        if (words.includes(tokens[i]))
            return i;
    return -1;
}
/** `tokens` inserted right after position `index`. */
function insertAfter(argv, index, tokens) {
    return [...argv.slice(0, index + 1), ...tokens, ...argv.slice(index + 1)];
}
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash']);
/**
 * The program a `bash -c 'SCRIPT'` wrapper runs first (aider takes its prompt with --message, so it runs as
 * `bash -c 'aider … --message "$(cat -)"'`), skipping `VAR=value` assignments and `exec`/`env`.
 */
function wrappedProgram(argv) {
    if (!SHELLS.has(programStem(argv[0])))
        return undefined;
    const c = argv.indexOf('-c');
    const script = c === -1 ? undefined : argv[c + 1];
    if (script === undefined)
        return undefined;
    for (const word of script.trim().split(/\s+/)) {
        if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || word === 'exec' || word === 'env')
            continue;
        return word.replace(/^['"]|['"]$/g, '');
    }
    return undefined;
}

;// CONCATENATED MODULE: ./src/agents/lines.ts
// Splits a byte stream into lines as it arrives, with a bound on what a single line may hold in memory.
/** Bytes one line may hold; a longer line is dropped (reported as oversized), never buffered whole. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
class LineSplitter {
    onLine;
    onOversized;
    maxLineBytes;
    parts = [];
    size = 0;
    oversized = false;
    constructor(onLine, onOversized = () => undefined, maxLineBytes = MAX_LINE_BYTES) {
        this.onLine = onLine;
        this.onOversized = onOversized;
        this.maxLineBytes = maxLineBytes;
    }
    push(chunk) {
        let start = 0;
        for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
            this.take(chunk.subarray(start, nl));
            this.emit();
            start = nl + 1;
        }
        if (start < chunk.length)
            this.take(chunk.subarray(start));
    }
    /** The stream ended: a last line without a newline still counts. */
    end() {
        if (this.size > 0 || this.oversized)
            this.emit();
    }
    take(piece) {
        if (piece.length === 0)
            return;
        this.size += piece.length;
        if (this.oversized)
            return;
        if (this.size > this.maxLineBytes) {
            this.oversized = true;
            this.parts = [];
            return;
        }
        // Copy: the chunk's buffer may be reused by the stream.
        this.parts.push(Buffer.from(piece));
    }
    emit() {
        if (this.oversized)
            this.onOversized(this.size);
        else
            this.onLine(Buffer.concat(this.parts).toString('utf8').replace(/\r$/, ''));
        this.parts = [];
        this.size = 0;
        this.oversized = false;
    }
}

;// CONCATENATED MODULE: ./src/agents/stream.ts
// What every JSON-stream preset shares: lines read as they arrive, normalised events, a readable
// transcript, and an outcome assembled from what the events said.

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value) => typeof value === 'number' && Number.isFinite(value) ? value : 0;
const str = (value) => (typeof value === 'string' ? value : undefined);
/** Text on one line, at most `max` characters. */
function oneLine(text, max = 160) {
    const flat = text.replace(/\s+/g, ' ').trim();
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
/** The part of a tool's input worth a transcript line: the command, the path, the pattern… */
function describeToolInput(input) {
    if (typeof input === 'string')
        return oneLine(input);
    if (!isObject(input))
        return '';
    for (const key of ['command', 'cmd', 'file_path', 'filePath', 'path', 'pattern', 'url', 'description']) {
        const value = input[key];
        if (typeof value === 'string')
            return oneLine(value);
        if (Array.isArray(value) && value.every(v => typeof v === 'string'))
            return oneLine(value.join(' '));
    }
    return oneLine(JSON.stringify(input));
}
/** The readable transcript line of an event; undefined for events that have none (usage). */
function transcriptLine(event) {
    switch (event.kind) {
        case 'text':
            return event.text;
        case 'tool_call':
            return `→ ${event.name}${event.detail ? ` ${event.detail}` : ''}`;
        case 'tool_result':
            return `← ${event.ok ? 'result' : 'error'}: ${event.detail}`;
        case 'usage':
            return undefined;
        case 'result':
            return event.summary;
        case 'error':
            return `[error] ${event.message}`;
        case 'notice':
            return event.message;
    }
}
const UNITS = { d: 86400, h: 3600, m: 60, min: 60, s: 1, sec: 1, ms: 0.001 };
/** Seconds in a duration like `1h2m3s`, `27.4s`, `90 seconds`, `2 hours`; undefined when there is none. */
function parseDuration(text) {
    const compact = /(\d+(?:\.\d+)?)(ms|[dhms])(?![a-z])/gi;
    let total = 0;
    let found = false;
    for (const match of text.matchAll(compact)) {
        total += Number(match[1]) * UNITS[match[2].toLowerCase()];
        found = true;
    }
    if (found)
        return total;
    const words = /(\d+(?:\.\d+)?)\s*(day|hour|minute|min|second|sec)s?\b/gi;
    for (const match of text.matchAll(words)) {
        const unit = match[2].toLowerCase();
        total +=
            Number(match[1]) * (unit === 'day' ? 86400 : unit === 'hour' ? 3600 : unit.startsWith('min') ? 60 : 1);
        found = true;
    }
    return found ? total : undefined;
}
/** When a usage-limit message says the limit lifts: "resets after 1h2m", "try again in 27s", an ISO date. */
function resetFromMessage(message, now = Date.now()) {
    const relative = /(?:resets?(?: after| in)?|retry (?:in|after)|try again in)\s+((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(message);
    if (relative) {
        const seconds = parseDuration(relative[1]);
        if (seconds !== undefined)
            return now + seconds * 1000;
    }
    // Claude's older "Claude AI usage limit reached|1760000000" (epoch seconds).
    const epoch = /limit reached\|(\d{10})\b/i.exec(message);
    if (epoch)
        return Number(epoch[1]) * 1000;
    // "resets 3pm (UTC)" (claude), "try again at 3:45 PM" (codex): the next such time of day (local unless UTC).
    const clock = /(?:resets?(?: at)?|try again at) (\d{1,2})(?::(\d{2}))?\s*(am|pm)\b/i.exec(message);
    if (clock) {
        const hour = (Number(clock[1]) % 12) + (clock[3].toLowerCase() === 'pm' ? 12 : 0);
        const minute = Number(clock[2] ?? 0);
        const at = new Date(now);
        const utc = /\bUTC\b/.test(message);
        if (utc)
            at.setUTCHours(hour, minute, 0, 0);
        else
            at.setHours(hour, minute, 0, 0);
        if (at.getTime() <= now)
            at.setTime(at.getTime() + 24 * 3600 * 1000);
        return at.getTime();
    }
    const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))\b/.exec(message);
    if (iso) {
        const at = Date.parse(iso[1]);
        if (Number.isFinite(at))
            return at;
    }
    return undefined;
}
/** Messages that mean a usage or quota limit rather than a passing API failure. */
const USAGE_LIMIT = /usage limit|hit your (?:(?:usage|session|weekly|daily|monthly) )?limit|quota (?:exceeded|exhausted)|exceeded your (?:current )?quota|exhausted your (?:daily )?(?:quota|capacity)|RESOURCE_EXHAUSTED|TerminalQuotaError|usage_limit_reached|insufficient_quota/i;
/** Retries reported in one run from which the record calls it an API-retry storm. */
const RETRY_STORM = 3;
/**
 * The shared reader of a JSON-lines stream. Subclasses handle parsed objects (`onJson`) and emit
 * normalised events; the outcome is assembled from what they recorded.
 */
class JsonLinesReader {
    hooks;
    notes = [];
    usage;
    finalMessage;
    isError;
    failure;
    denials = [];
    retries = 0;
    /** The last API error seen in a retry, for the storm's note. */
    lastRetryError;
    stderrTail = '';
    lines;
    constructor(hooks) {
        this.hooks = hooks;
        this.lines = new LineSplitter(line => this.onLine(line), bytes => this.notes.push(`a stream line of ${bytes} bytes was too long to read and was skipped`));
    }
    stdout(chunk) {
        this.lines.push(chunk);
    }
    stderr(chunk) {
        // Kept for the failure message of an agent that dies without saying why on stdout.
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    }
    finish(_stdoutText, exit) {
        this.lines.end();
        this.end(exit);
        if (this.retries >= RETRY_STORM)
            this.notes.push(`API-retry storm: the agent retried the model API ${this.retries} times` +
                (this.lastRetryError ? ` (last error: ${this.lastRetryError})` : ''));
        if (!this.failure && exit && !exit.killed && exit.code !== null && exit.code !== 0) {
            const said = oneLine(this.stderrTail.trim().split('\n').slice(-3).join(' '), 300);
            this.failure = this.exitFailure(exit.code, said);
        }
        const outcome = { notes: this.notes };
        if (this.finalMessage !== undefined)
            outcome.finalMessage = this.finalMessage;
        if (this.usage)
            outcome.usage = this.usage;
        if (this.isError !== undefined)
            outcome.isError = this.isError;
        if (this.failure)
            outcome.failure = this.failure;
        if (this.denials.length > 0)
            outcome.permissionDenials = this.denials;
        if (this.retries > 0)
            outcome.apiRetries = this.retries;
        return outcome;
    }
    /** The failure of a non-zero exit that the stream did not explain. */
    exitFailure(code, stderr) {
        return { kind: 'error', message: `the agent exited with ${code}${stderr ? `: ${stderr}` : ''}` };
    }
    /** Called once the stream has ended, before the outcome is assembled. */
    end(_exit) { }
    /** A line that is not JSON (a warning printed on stdout): kept in the transcript as is. */
    onPlainLine(line) {
        this.emit({ kind: 'text', text: line });
    }
    emit(event) {
        if (event.kind === 'usage') {
            this.usage = event.usage;
            this.hooks.onUsage(event.usage);
        }
        this.hooks.onEvent?.(event);
        const line = transcriptLine(event);
        if (line !== undefined)
            this.hooks.onTranscript(line);
    }
    deny(denial) {
        const same = this.denials.some(d => d.tool === denial.tool && d.detail === denial.detail);
        if (!same)
            this.denials.push(denial);
    }
    onLine(line) {
        if (line.trim() === '')
            return;
        let event;
        try {
            event = JSON.parse(line);
        }
        catch {
            this.onPlainLine(line);
            return;
        }
        if (isObject(event))
            this.onJson(event);
    }
}

;// CONCATENATED MODULE: external "node:fs"
const external_node_fs_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs");
var external_node_fs_default = /*#__PURE__*/__nccwpck_require__.n(external_node_fs_namespaceObject);
;// CONCATENATED MODULE: ./src/agents/watched-file.ts
// A file an agent writes beside its output (a generic agent's cost report, gemini's telemetry log, codex's
// session log), read while the agent runs: live enforcement of the dollar budget. A file we name lives in a
// private temp folder removed afterwards; a file the agent names itself is found once it exists, and left.



/** Bytes read at most per poll of an appended file (the rest waits for the next poll). */
const READ_CHUNK = 4 * 1024 * 1024;
/** A rewritten file larger than this is no report: it is not read. */
const REWRITTEN_MAX = 1024 * 1024;
// The agent may be another user who made the file: a symlink (to a file only we may read) is not followed, and
// a FIFO or device is not opened for real (O_NONBLOCK, then only a regular file is read), so it cannot block us.
const OPEN_FLAGS = external_node_fs_namespaceObject.constants.O_RDONLY | external_node_fs_namespaceObject.constants.O_NOFOLLOW | external_node_fs_namespaceObject.constants.O_NONBLOCK;
class WatchedFile {
    options;
    /** The file's path; for a file the agent names, undefined until it is found. */
    path;
    dir;
    timer;
    last;
    offset = 0;
    constructor(options) {
        this.options = options;
        if ('name' in options) {
            this.dir = (0,external_node_fs_namespaceObject.mkdtempSync)(external_node_path_default().join(external_node_os_default().tmpdir(), 'ralph-agent-'));
            // The agent may run as a user of its own (isolation): it may create the file there, but list nothing.
            (0,external_node_fs_namespaceObject.chmodSync)(this.dir, 0o1733);
            this.path = external_node_path_default().join(this.dir, options.name);
        }
        this.timer = setInterval(() => this.read(false), options.pollMs);
        this.timer.unref();
    }
    /** A file we name (the agent gets its path in a variable): its path is known from the start. */
    static named(options) {
        return new WatchedFile(options);
    }
    /** The agent is done: a last read, then our own folder is removed. */
    close() {
        clearInterval(this.timer);
        this.read(true);
        if (this.dir)
            (0,external_node_fs_namespaceObject.rmSync)(this.dir, { recursive: true, force: true });
    }
    read(final) {
        if (this.path === undefined && 'find' in this.options)
            this.path = this.options.find();
        if (this.path === undefined)
            return;
        let fd;
        try {
            fd = (0,external_node_fs_namespaceObject.openSync)(this.path, OPEN_FLAGS);
        }
        catch {
            return; // not there yet, or not a file we read
        }
        try {
            const stat = (0,external_node_fs_namespaceObject.fstatSync)(fd);
            if (!stat.isFile())
                return;
            if (this.options.mode === 'rewritten') {
                if (stat.size > REWRITTEN_MAX)
                    return;
                const buffer = Buffer.alloc(stat.size);
                const text = buffer.toString('utf8', 0, (0,external_node_fs_namespaceObject.readSync)(fd, buffer, 0, buffer.length, 0));
                if (text === this.last || text.trim() === '')
                    return;
                if (this.options.onChange(text, final))
                    this.last = text;
                return;
            }
            while (this.offset < stat.size) {
                const buffer = Buffer.alloc(Math.min(READ_CHUNK, stat.size - this.offset));
                const bytes = (0,external_node_fs_namespaceObject.readSync)(fd, buffer, 0, buffer.length, this.offset);
                if (bytes === 0)
                    break;
                this.offset += bytes;
                this.options.onData(buffer.subarray(0, bytes));
                if (!final)
                    break;
            }
        }
        finally {
            (0,external_node_fs_namespaceObject.closeSync)(fd);
        }
    }
}

;// CONCATENATED MODULE: ./src/agents/generic.ts
// Any program that reads the prompt on stdin. Its output is plain text; the final message is its end.
// It may report its cost two ways (README, "Cost of your own agent"): a line on stdout or stderr
// (`ralph-cost: usd=0.0123 input=1200 output=340`, or any line matching a configured pattern with named
// groups), or a JSON file at the path in $RALPH_COST_FILE. Each report is the run's total so far.



/** Characters of the prompt's end looked for in the output to recognise an echo of the prompt. */
const ECHO_PROBE_CHARS = 200;
/**
 * The final message of a plain-text agent, precisely:
 * 1. stdout only (stderr is logs and tool noise), with CRLF/CR read as LF;
 * 2. when the output contains the end of the prompt (the last 200 characters of the trimmed prompt),
 *    only what follows its last occurrence counts: an agent that echoes the prompt (`cat`, a CLI that
 *    prints the user turn) never answers with the prompt's own words;
 * 3. of that, the last paragraph: the lines after the last blank line, trailing blank lines ignored;
 *    when that paragraph closes a `---RALPH_STATUS---` block that began earlier, the whole block.
 * Undefined when nothing is left.
 */
function finalMessageFromOutput(stdout, prompt) {
    let text = stdout.replace(/\r\n?/g, '\n');
    const probe = prompt.replace(/\r\n?/g, '\n').trimEnd().slice(-ECHO_PROBE_CHARS);
    if (probe.trim() !== '') {
        const echoed = text.lastIndexOf(probe);
        if (echoed !== -1)
            text = text.slice(echoed + probe.length);
    }
    text = text.trimEnd();
    if (text.trim() === '')
        return undefined;
    const lines = text.split('\n');
    let start = lines.length - 1;
    while (start > 0 && lines[start - 1].trim() !== '')
        start--;
    const paragraph = lines.slice(start);
    const closesBlock = paragraph.some(line => line.trim() === '---END_RALPH_STATUS---');
    const opensBlock = paragraph.some(line => line.trim() === '---RALPH_STATUS---');
    if (closesBlock && !opensBlock) {
        for (let i = start - 1; i >= 0; i--) {
            if (lines[i].trim() === '---RALPH_STATUS---') {
                start = i;
                break;
            }
        }
    }
    return lines.slice(start).join('\n');
}
const COST_FILE_ENV = 'RALPH_COST_FILE';
/** How often the cost file is read while the agent runs (live enforcement of the dollar budget). */
const COST_FILE_POLL_MS = 250;
const COST_LINE = /^\s*ralph-cost:\s*(.*)$/i;
const FIELDS = ['usd', 'input', 'output', 'cache_read', 'cache_write'];
/** A cost report's fields from JSON or `key=value` pairs; undefined when it holds nothing usable. */
function parseCostReport(text) {
    const values = {};
    const trimmed = text.trim();
    if (trimmed.startsWith('{')) {
        try {
            const json = JSON.parse(trimmed);
            for (const [key, value] of Object.entries(json))
                if (typeof value === 'number' || typeof value === 'string')
                    values[key] = String(value);
        }
        catch {
            return undefined;
        }
    }
    else {
        for (const match of trimmed.matchAll(/([A-Za-z_]+)\s*=\s*("[^"]*"|\S+)/g))
            values[match[1].toLowerCase()] = match[2].replace(/^"|"$/g, '');
        const bare = /^\$?(\d+(?:\.\d+)?)\s*(?:usd)?$/i.exec(trimmed);
        if (bare)
            values.usd = bare[1];
    }
    return costFromValues(values);
}
function costFromValues(values) {
    const usdText = values.usd ?? values.cost_usd ?? values.total_cost_usd;
    const number = (key) => {
        const n = Number((values[key] ?? '').replace(/[$,_]/g, ''));
        return Number.isFinite(n) && n >= 0 ? n : 0;
    };
    const report = {
        input: number('input'),
        output: number('output'),
        cache_read: number('cache_read'),
        cache_write: number('cache_write')
    };
    if (usdText !== undefined) {
        const usd = Number(usdText.replace(/[$,_]/g, ''));
        if (Number.isFinite(usd) && usd >= 0)
            report.reportedUsd = usd;
    }
    if (values.model)
        report.model = values.model;
    const anything = report.reportedUsd !== undefined || FIELDS.some(f => values[f] !== undefined);
    return anything ? report : undefined;
}
/** The cost line pattern, compiled once: one that does not compile is a configuration error. */
function compileCostPattern(pattern) {
    try {
        return new RegExp(pattern);
    }
    catch (error) {
        throw new Error(`The cost pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${error.message}`, { cause: error });
    }
}
class PlainReader {
    prompt;
    hooks;
    options;
    env;
    out;
    err;
    pattern;
    usage;
    failure;
    retries = 0;
    notes = [];
    sink = {
        report: usage => this.report(usage),
        fail: failure => (this.failure = failure),
        retried: () => this.retries++
    };
    costFile;
    constructor(prompt, hooks, options = {}) {
        this.prompt = prompt;
        this.hooks = hooks;
        this.options = options;
        const onLine = (line) => this.onLine(line);
        this.out = new LineSplitter(onLine);
        this.err = new LineSplitter(onLine);
        if (options.cost?.pattern)
            this.pattern = compileCostPattern(options.cost.pattern);
        const fileEnv = options.cost?.fileEnv ?? COST_FILE_ENV;
        if (hooks && options.cost && fileEnv !== '') {
            const costFile = WatchedFile.named({
                name: 'cost.json',
                pollMs: COST_FILE_POLL_MS,
                mode: 'rewritten',
                onChange: (text, final) => this.onCostFile(text, final, fileEnv)
            });
            this.costFile = costFile;
            this.env = { [fileEnv]: costFile.path };
        }
    }
    stdout(chunk) {
        this.out.push(chunk);
    }
    stderr(chunk) {
        this.err.push(chunk);
    }
    finish(stdoutText, exit) {
        this.out.end();
        this.err.end();
        this.costFile?.close();
        const text = this.options.clean ? this.options.clean(stdoutText) : stdoutText;
        const finalMessage = finalMessageFromOutput(text, this.prompt);
        const outcome = {
            ...(finalMessage !== undefined ? { finalMessage } : {}),
            notes: this.notes
        };
        if (this.usage)
            outcome.usage = this.usage;
        const byExit = exit && !exit.killed && exit.code !== null ? this.options.exitFailures?.[exit.code] : undefined;
        const failure = this.failure ?? byExit;
        if (failure)
            outcome.failure = failure;
        if (this.retries > 0)
            outcome.apiRetries = this.retries;
        if (this.retries >= RETRY_STORM)
            this.notes.push(`API-retry storm: the agent retried the model API ${this.retries} times`);
        return outcome;
    }
    report(usage) {
        this.usage = usage;
        this.hooks?.onUsage(usage);
        this.hooks?.onEvent?.({ kind: 'usage', usage });
    }
    onLine(line) {
        if (!this.hooks)
            return;
        const builtIn = this.options.cost ? COST_LINE.exec(line) : null;
        if (builtIn) {
            const usage = parseCostReport(builtIn[1]);
            if (usage)
                this.report(usage);
            return;
        }
        if (this.pattern) {
            const match = this.pattern.exec(line);
            if (match?.groups) {
                const usage = costFromValues(match.groups);
                if (usage)
                    this.report(usage);
                return;
            }
        }
        this.options.onLine?.(line, this.sink);
    }
    /** A new version of the cost file; `final` (the run is over) notes a file that holds no report. */
    onCostFile(text, final, variable) {
        const usage = parseCostReport(text);
        if (usage)
            this.report(usage);
        // While the agent runs, a half-written file is read again at the next poll.
        else if (final)
            this.notes.push(`the cost file ($${variable}) held no cost report: ${text.trim().slice(0, 120)}`);
        return usage !== undefined;
    }
}
/** A reader of plain-text output (the generic final message; cost lines and the cost file when hooked). */
function genericReader(prompt, hooks, options = {}) {
    return new PlainReader(prompt, hooks, options);
}

/** The generic preset, reading cost reports as `cost` says. */
function genericPresetWith(cost = {}) {
    if (cost.pattern)
        compileCostPattern(cost.pattern);
    return {
        name: 'generic',
        jsonStream: false,
        argv: userArgv => [...userArgv],
        read: (prompt, hooks) => genericReader(prompt, hooks, { cost })
    };
}
const genericPreset = genericPresetWith();

;// CONCATENATED MODULE: ./src/agents/aider.ts
// Aider has no JSON mode. After each model reply it prints (Aider-AI/aider aider/coders/base_coder.py,
// calculate_and_show_tokens_and_cost):
//   Tokens: 12k sent, 1.2k cache write, 10k cache hit, 133 received. Cost: $0.04 message, $0.10 session.
// with the Cost part on its own line when both cache figures are shown, and no Cost part at all for a model
// it has no price for. Counts above 999 are abbreviated (`format_tokens`: 2.5k, 12k). The session cost is
// the run's total (one aider process per iteration); token counts are summed over replies. Aider takes
// its prompt with --message, so it usually runs as `bash -c 'aider … --message "$(cat -)"'`; no flag is added.



/** `aider …`, or a shell wrapper whose script starts with aider. */
function isAiderCommand(argv) {
    if (programStem(argv[0]) === 'aider')
        return true;
    const wrapped = wrappedProgram(argv);
    return wrapped !== undefined && programStem(wrapped) === 'aider';
}
/** `12k` → 12000, `2.5k` → 2500, `1.2M` → 1200000, `133` → 133. */
function parseTokenCount(text) {
    const match = /^([\d.,]+)\s*([kKmM]?)$/.exec(text.trim());
    if (!match)
        return 0;
    const value = Number(match[1].replace(/,/g, ''));
    const scale = match[2].toLowerCase() === 'k' ? 1e3 : match[2].toLowerCase() === 'm' ? 1e6 : 1;
    return Number.isFinite(value) ? Math.round(value * scale) : 0;
}
const TOKENS = /^Tokens:\s*(.+?)\.?(?:\s+Cost:.*)?$/;
const COST = /Cost:\s*\$([\d.]+)\s*message,\s*\$([\d.]+)\s*session/;
const RETRY = /Retrying in [\d.]+ seconds/i;
/** Parses aider's usage lines as they come; the totals are the run's so far. */
class AiderUsage {
    totals = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
    seen = false;
    /** Reads one line; answers the new totals when it was a usage line. */
    line(line) {
        const text = line.trim();
        let changed = false;
        const tokens = TOKENS.exec(text);
        if (tokens) {
            let sent = 0;
            let cacheWrite = 0;
            for (const part of tokens[1].split(/[,;]/)) {
                const m = /^\s*([\d.,]+\s*[kKmM]?)\s+(sent|received|Total|cache write|cache hit|cache read)\b/.exec(part);
                if (!m)
                    continue;
                const n = parseTokenCount(m[1]);
                if (m[2] === 'sent')
                    sent = n;
                else if (m[2] === 'received' || m[2] === 'Total')
                    this.totals.output += n;
                else if (m[2] === 'cache write')
                    cacheWrite = n;
                else
                    this.totals.cache_read += n;
            }
            // "sent" counts the cache writes too.
            this.totals.input += Math.max(0, sent - cacheWrite);
            this.totals.cache_write += cacheWrite;
            changed = true;
        }
        const cost = COST.exec(text);
        if (cost) {
            this.totals.reportedUsd = Number(cost[2]);
            changed = true;
        }
        if (!changed)
            return undefined;
        this.seen = true;
        return { ...this.totals };
    }
    get any() {
        return this.seen;
    }
}
/** Aider's status lines are not part of its answer. */
function withoutAiderStatus(stdout) {
    return stdout
        .split('\n')
        .filter(line => !/^\s*(Tokens:|Cost: \$|Applied edit to |Commit [0-9a-f]{7,} )/.test(line))
        .join('\n');
}
function aiderReader(prompt, hooks) {
    const usage = new AiderUsage();
    return genericReader(prompt, hooks, {
        clean: withoutAiderStatus,
        onLine: (line, sink) => {
            const totals = usage.line(line);
            if (totals)
                return sink.report(totals);
            if (RETRY.test(line))
                sink.retried();
            if (USAGE_LIMIT.test(line)) {
                const message = oneLine(line, 300);
                const resetsAt = resetFromMessage(message);
                sink.fail({ kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) });
            }
        }
    });
}
const aiderPreset = {
    name: 'aider',
    jsonStream: false,
    argv: userArgv => [...userArgv],
    read: (prompt, hooks) => aiderReader(prompt, hooks)
};

;// CONCATENATED MODULE: ./src/agents/claude.ts
// Claude Code in print mode. Like the reference runtime, `--output-format stream-json --verbose` is
// appended (even when the user's command already has --output-format: argv parity with ralphify), and the
// final message is the `result` event's text. Our own flags come only with our own settings: the loop's
// remaining dollar budget as `--max-budget-usd` and its turn cap as `--max-turns`, unless already given.
// Per-turn usage feeds the cost meter live; the readable transcript goes to agent.log.


/** Appended verbatim, even when the user's command already has --output-format (the reference does). */
const CLAUDE_STREAM_FLAGS = ['--output-format', 'stream-json', '--verbose'];
/** Python's Path(argv0).stem == 'claude': `/usr/bin/claude`, `claude.exe` and `claude.cmd` all match. */
function isClaudeCommand(argv0) {
    return programStem(argv0) === 'claude';
}
/** Dollars as claude's --max-budget-usd reads them: never rounded up past what is left. */
function formatBudget(usd) {
    return (Math.floor(Math.max(0, usd) * 1e6) / 1e6).toString();
}
/** The command line: the reference's flags, then the caps the loop can hand to claude itself. */
function claudeArgv(userArgv, caps = {}) {
    const argv = [...userArgv, ...CLAUDE_STREAM_FLAGS];
    if (caps.remainingUsd !== undefined && !hasOption(userArgv, ['--max-budget-usd']))
        argv.push('--max-budget-usd', formatBudget(caps.remainingUsd));
    if (caps.maxTurns !== undefined && !hasOption(userArgv, ['--max-turns']))
        argv.push('--max-turns', String(caps.maxTurns));
    return argv;
}
function toReport(usage, model) {
    const report = {
        input: num(usage.input_tokens),
        output: num(usage.output_tokens),
        cache_read: num(usage.cache_read_input_tokens),
        cache_write: num(usage.cache_creation_input_tokens)
    };
    if (model)
        report.model = model;
    return report;
}
/** `modelUsage` sums (every model the run used, subagents and broken streams included), or undefined. */
function modelUsageReport(modelUsage, model) {
    if (!isObject(modelUsage))
        return undefined;
    const entries = Object.entries(modelUsage).filter(([, v]) => isObject(v));
    if (entries.length === 0)
        return undefined;
    const report = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
    for (const [, m] of entries) {
        report.input += num(m.inputTokens);
        report.output += num(m.outputTokens);
        report.cache_read += num(m.cacheReadInputTokens);
        report.cache_write += num(m.cacheCreationInputTokens);
    }
    // The model that did most of the work names the run.
    const main = entries.reduce((a, b) => (num(b[1].outputTokens) > num(a[1].outputTokens) ? b : a))[0];
    const named = main || model;
    if (named !== undefined)
        report.model = named;
    return report;
}
/** Claude Code's stream-json, also spoken by qwen-code (which prints no dollars: its tokens are priced). */
class ClaudeStreamReader extends JsonLinesReader {
    agent;
    // One assistant message arrives as several events (one per content block) with the same id and usage.
    turns = new Map();
    model;
    sawResult = false;
    constructor(hooks, 
    /** The agent's name in messages. */
    agent = 'claude') {
        super(hooks);
        this.agent = agent;
    }
    end(exit) {
        if (this.sawResult)
            return;
        if (this.turns.size > 0)
            this.usage = this.cumulative();
        this.notes.push('the stream ended without a result event');
        if (exit && !exit.killed && exit.code !== 0 && !this.failure)
            this.failure = {
                kind: 'error',
                message: `${this.agent} exited with ${exit.code ?? exit.signal} without a result`
            };
    }
    cumulative() {
        const sum = {};
        for (const usage of this.turns.values()) {
            sum.input_tokens = num(sum.input_tokens) + num(usage.input_tokens);
            sum.output_tokens = num(sum.output_tokens) + num(usage.output_tokens);
            sum.cache_read_input_tokens = num(sum.cache_read_input_tokens) + num(usage.cache_read_input_tokens);
            sum.cache_creation_input_tokens =
                num(sum.cache_creation_input_tokens) + num(usage.cache_creation_input_tokens);
        }
        return toReport(sum, this.model);
    }
    onJson(event) {
        switch (event.type) {
            case 'system':
                this.onSystem(event);
                break;
            case 'assistant':
                this.onAssistant(event);
                break;
            case 'user':
                this.onUser(event);
                break;
            case 'result':
                this.onResult(event);
                break;
            case 'rate_limit_event':
                this.onRateLimit(event);
                break;
        }
    }
    onSystem(event) {
        if (event.subtype === 'init') {
            if (typeof event.model === 'string')
                this.model = event.model;
            this.emit({
                kind: 'notice',
                message: `[session ${String(event.session_id ?? '?')}] model ${String(event.model ?? '?')}`
            });
        }
        else if (event.subtype === 'api_retry') {
            this.retries++;
            const status = event.error_status ?? event.error ?? '?';
            this.lastRetryError = String(event.error_status ?? event.error ?? 'unknown');
            this.emit({
                kind: 'notice',
                message: `[api retry ${String(event.attempt ?? '?')}/${String(event.max_retries ?? '?')}] status ${String(status)}`
            });
        }
        else if (event.subtype === 'permission_denied') {
            const tool = str(event.tool_name) ?? '?';
            const reason = str(event.decision_reason) ?? str(event.message) ?? '';
            this.emit({
                kind: 'notice',
                message: `[permission denied] ${tool}${reason ? `: ${oneLine(reason)}` : ''}`
            });
        }
    }
    onAssistant(event) {
        const message = isObject(event.message) ? event.message : {};
        if (typeof message.model === 'string' && message.model !== '<synthetic>')
            this.model = message.model;
        for (const block of Array.isArray(message.content) ? message.content : []) {
            if (!isObject(block))
                continue;
            if (block.type === 'text' && typeof block.text === 'string')
                this.emit({ kind: 'text', text: block.text });
            else if (block.type === 'tool_use')
                this.emit({ kind: 'tool_call', name: String(block.name), detail: describeToolInput(block.input) });
        }
        // A synthetic message (an API error said as text) carries no real usage.
        if (isObject(message.usage) && message.model !== '<synthetic>') {
            const id = typeof message.id === 'string' ? message.id : `turn-${this.turns.size}`;
            this.turns.set(id, message.usage);
            this.emit({ kind: 'usage', usage: this.cumulative() });
        }
    }
    onUser(event) {
        const message = isObject(event.message) ? event.message : {};
        for (const block of Array.isArray(message.content) ? message.content : []) {
            if (!isObject(block) || block.type !== 'tool_result')
                continue;
            const content = typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? '');
            this.emit({ kind: 'tool_result', ok: block.is_error !== true, detail: oneLine(content, 120) });
        }
    }
    /** `rate_limit_event`: status "rejected" means a usage limit was hit (subscription logins only). */
    onRateLimit(event) {
        const info = isObject(event.rate_limit_info) ? event.rate_limit_info : {};
        const status = str(info.status) ?? '?';
        const resetsAt = typeof info.resetsAt === 'number' ? info.resetsAt * 1000 : undefined;
        const kind = str(info.rateLimitType);
        const when = resetsAt !== undefined ? `, resets at ${new Date(resetsAt).toISOString()}` : '';
        this.emit({ kind: 'notice', message: `[rate limit] ${status}${kind ? ` (${kind})` : ''}${when}` });
        if (status === 'rejected') {
            this.failure = {
                kind: 'usage_limit',
                message: `claude's ${kind ? `${kind} ` : ''}usage limit was reached${when}`,
                ...(resetsAt !== undefined ? { resetsAt } : {})
            };
        }
    }
    onResult(event) {
        this.sawResult = true;
        const fromModels = modelUsageReport(event.modelUsage, this.model);
        const usage = fromModels ?? toReport(isObject(event.usage) ? event.usage : {}, this.model);
        if (typeof event.total_cost_usd === 'number')
            usage.reportedUsd = event.total_cost_usd;
        else if (typeof event.cost_usd === 'number')
            usage.reportedUsd = event.cost_usd;
        const text = typeof event.result === 'string' ? event.result : undefined;
        const isError = event.is_error === true;
        this.finalMessage = text;
        this.isError = isError;
        this.emit({ kind: 'usage', usage });
        for (const denial of Array.isArray(event.permission_denials) ? event.permission_denials : []) {
            if (!isObject(denial))
                continue;
            const detail = describeToolInput(denial.tool_input);
            this.deny({ tool: str(denial.tool_name) ?? '?', ...(detail ? { detail } : {}) });
        }
        if (isError)
            this.failure = this.resultFailure(event, text);
        const cost = usage.reportedUsd !== undefined ? ` · $${usage.reportedUsd.toFixed(4)}` : '';
        const turns = event.num_turns !== undefined ? ` · ${String(event.num_turns)} turns` : '';
        this.emit({
            kind: 'result',
            isError,
            summary: `[result] ${String(event.subtype ?? '?')}${isError ? ' (error)' : ''}${cost}${turns}`,
            ...(text !== undefined ? { text } : {})
        });
        if (text)
            this.emit({ kind: 'text', text });
    }
    resultFailure(event, text) {
        const errors = Array.isArray(event.errors) ? event.errors.filter(e => typeof e === 'string') : [];
        // qwen says it in `error.message` instead.
        const said = isObject(event.error) ? str(event.error.message) : undefined;
        const message = oneLine(text || errors.join('; ') || said || String(event.subtype ?? 'error'), 300);
        // A rejected rate_limit_event said more (the reset time) than the result will.
        if (this.failure?.kind === 'usage_limit')
            return this.failure;
        switch (event.subtype) {
            case 'error_max_budget_usd':
                return { kind: 'budget', message };
            case 'error_max_turns':
                return { kind: 'max_turns', message };
        }
        // A 429 alone is a rate limit claude already retried: an API error, the loop goes on.
        if (USAGE_LIMIT.test(message)) {
            const resetsAt = resetFromMessage(message);
            return { kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) };
        }
        if (event.terminal_reason === 'api_error' ||
            event.api_error_status != null ||
            /^\[?API Error/.test(message))
            return { kind: 'api_error', message };
        return { kind: 'error', message };
    }
}
const claudePreset = {
    name: 'claude',
    jsonStream: true,
    argv: (userArgv, caps) => claudeArgv(userArgv, caps),
    read: (_prompt, hooks) => new ClaudeStreamReader(hooks)
};

;// CONCATENATED MODULE: ./src/agents/codex.ts
// Codex (`codex exec`). With `--json` it prints JSONL: thread.started, turn.started, item.started/updated/
// completed (agent_message, reasoning, command_execution, file_change, mcp_tool_call, web_search, todo_list,
// error), turn.completed{usage}, turn.failed{error}, and top-level `error` (also "Reconnecting... n/N").
// It names no model and no dollars: the model comes from the command line or $CODEX_HOME/config.toml,
// and the cost is estimated from the price table. The stream says the usage only in turn.completed, at the
// end; turn by turn it comes from codex's own session log, $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-
// <thread id>.jsonl, whose `token_count` events (total_token_usage) codex 0.169 writes after each model
// response: so a dollar budget can stop a codex run mid-way.








const EXEC = ['exec', 'e'];
const JSON_FLAGS = ['--json', '--experimental-json'];
/** How often the session log is read while codex runs. */
const SESSION_POLL_MS = 250;
/** `codex exec …` (or its alias `codex e …`): the only codex command a loop can run headless. */
function isCodexExec(argv) {
    return programStem(argv[0]) === 'codex' && subcommandIndex(argv, EXEC) !== -1;
}
/** The user's argv with `--json` right after `exec`, unless it is there already. */
function codexArgv(userArgv) {
    if (hasOption(userArgv, JSON_FLAGS))
        return [...userArgv];
    return insertAfter(userArgv, subcommandIndex(userArgv, EXEC), ['--json']);
}
const unquote = (value) => value.trim().replace(/^["']|["']$/g, '');
/** The top-level `model = "…"` of a config.toml (before its first [table]). */
function modelInConfigToml(text) {
    for (const line of text.split('\n')) {
        if (/^\s*\[/.test(line))
            return undefined;
        const match = /^\s*model\s*=\s*(["'])([^"']+)\1/.exec(line);
        if (match)
            return match[2];
    }
    return undefined;
}
/** $CODEX_HOME, or ~/.codex. */
const codexHomeOf = (env) => env.CODEX_HOME || external_node_path_default().join(env.HOME || external_node_os_default().homedir(), '.codex');
const pad = (n) => String(n).padStart(2, '0');
/**
 * The session log of thread `threadId`, once codex has made it. Its folder is named after the date codex
 * saw (local time); a run near midnight, or a clock in another zone, is found a day apart too.
 */
function codexSessionLog(codexHome, threadId, now = Date.now()) {
    const days = new Set();
    for (const offset of [0, -1, 1]) {
        const day = new Date(now + offset * 86400000);
        days.add(external_node_path_default().join(String(day.getFullYear()), pad(day.getMonth() + 1), pad(day.getDate())));
        days.add(external_node_path_default().join(String(day.getUTCFullYear()), pad(day.getUTCMonth() + 1), pad(day.getUTCDate())));
    }
    for (const day of days) {
        const dir = external_node_path_default().join(codexHome, 'sessions', day);
        let names;
        try {
            names = (0,external_node_fs_namespaceObject.readdirSync)(dir);
        }
        catch {
            continue;
        }
        const name = names.find(file => file.startsWith('rollout-') && file.endsWith(`-${threadId}.jsonl`));
        if (name)
            return external_node_path_default().join(dir, name);
    }
    return undefined;
}
/** The model codex will use: `-m`/`--model`, `-c model=…`, then $CODEX_HOME/config.toml (~/.codex). */
function codexModel(argv, env) {
    const flag = optionValue(argv, ['-m', '--model']);
    if (flag)
        return flag;
    let fromConfig;
    const tokens = argv.slice(1);
    tokens.forEach((token, i) => {
        const setting = token === '-c' || token === '--config'
            ? tokens[i + 1]
            : token.startsWith('--config=')
                ? token.slice(9)
                : undefined;
        const match = setting ? /^model\s*=\s*(.+)$/.exec(setting) : null;
        if (match)
            fromConfig = unquote(match[1]);
    });
    if (fromConfig)
        return fromConfig;
    try {
        return modelInConfigToml((0,external_node_fs_namespaceObject.readFileSync)(external_node_path_default().join(codexHomeOf(env), 'config.toml'), 'utf8'));
    }
    catch {
        return undefined;
    }
}
class CodexStreamReader extends JsonLinesReader {
    model;
    codexHome;
    totals = { input: 0, cached: 0, cacheWrite: 0, output: 0 };
    sawUsage = false;
    lastError;
    /** The session log, read while codex runs: usage after each model response. */
    session;
    liveTokens = 0;
    constructor(hooks, model, codexHome) {
        super(hooks);
        this.model = model;
        this.codexHome = codexHome;
    }
    finish(stdoutText, exit) {
        this.session?.close();
        return super.finish(stdoutText, exit);
    }
    /** Follows the thread's session log from the moment the stream names the thread. */
    followSession(threadId) {
        const home = this.codexHome;
        if (!home || this.session || !/^[\w-]+$/.test(threadId))
            return;
        const lines = new LineSplitter(line => this.onSessionLine(line));
        this.session = new WatchedFile({
            find: () => codexSessionLog(home, threadId),
            pollMs: SESSION_POLL_MS,
            mode: 'appended',
            onData: chunk => lines.push(chunk)
        });
    }
    onSessionLine(line) {
        if (!line.includes('"token_count"'))
            return;
        let event;
        try {
            event = JSON.parse(line);
        }
        catch {
            return;
        }
        const payload = isObject(event) && isObject(event.payload) ? event.payload : {};
        const info = isObject(payload.info) ? payload.info : {};
        const total = isObject(info.total_token_usage) ? info.total_token_usage : undefined;
        if (payload.type !== 'token_count' || !total)
            return;
        const tokens = num(total.input_tokens) + num(total.output_tokens);
        // turn.completed already said as much (or more): the stream is the final word.
        if (tokens <= this.liveTokens)
            return;
        this.liveTokens = tokens;
        this.emit({
            kind: 'usage',
            usage: this.report({
                input: num(total.input_tokens),
                cached: num(total.cached_input_tokens),
                cacheWrite: num(total.cache_write_input_tokens),
                output: num(total.output_tokens)
            })
        });
    }
    /** input_tokens counts the cached ones too (as the Responses API does): priced apart. */
    report(totals) {
        const report = {
            input: Math.max(0, totals.input - totals.cached - totals.cacheWrite),
            output: totals.output,
            cache_read: totals.cached,
            cache_write: totals.cacheWrite
        };
        if (this.model)
            report.model = this.model;
        return report;
    }
    end(exit) {
        if (!this.sawUsage && !exit?.killed)
            this.notes.push('codex reported no usage (no turn.completed)');
        if (exit?.killed && !this.sawUsage)
            this.notes.push(this.liveTokens > 0
                ? 'codex was stopped before turn.completed: its usage is what its session log said so far'
                : 'codex was stopped before turn.completed: its usage is unknown');
        if (!this.model)
            this.notes.push('codex did not say its model (set -m or model in config.toml) so its tokens cannot be priced');
        if (this.session && this.session.path === undefined)
            this.notes.push(`codex's session log (${this.codexHome}/sessions/…) was not found: its usage was known only at the end`);
    }
    onJson(event) {
        switch (event.type) {
            case 'thread.started':
                if (typeof event.thread_id === 'string')
                    this.followSession(event.thread_id);
                this.emit({
                    kind: 'notice',
                    message: `[thread ${String(event.thread_id ?? '?')}] model ${this.model ?? '?'}`
                });
                break;
            case 'item.started':
                if (isObject(event.item))
                    this.onItemStarted(event.item);
                break;
            case 'item.completed':
                if (isObject(event.item))
                    this.onItemCompleted(event.item);
                break;
            case 'turn.completed':
                this.onUsage(isObject(event.usage) ? event.usage : {});
                break;
            case 'turn.failed':
                this.onTurnFailed(isObject(event.error) ? str(event.error.message) : undefined);
                break;
            case 'error':
                this.onError(str(event.message) ?? JSON.stringify(event));
                break;
        }
    }
    onItemStarted(item) {
        if (item.type === 'command_execution')
            this.emit({ kind: 'tool_call', name: 'exec', detail: oneLine(str(item.command) ?? '') });
        else if (item.type === 'mcp_tool_call')
            this.emit({
                kind: 'tool_call',
                name: `${String(item.server ?? 'mcp')}.${String(item.tool ?? '?')}`,
                detail: describeToolInput(item.arguments)
            });
    }
    onItemCompleted(item) {
        switch (item.type) {
            case 'agent_message': {
                const text = str(item.text) ?? '';
                this.finalMessage = text;
                this.emit({ kind: 'text', text });
                break;
            }
            case 'command_execution': {
                const output = oneLine(str(item.aggregated_output) ?? '', 120);
                const code = item.exit_code;
                this.emit({
                    kind: 'tool_result',
                    ok: code === 0,
                    detail: `exit ${code === null || code === undefined ? '?' : String(code)}${output ? ` ${output}` : ''}`
                });
                break;
            }
            case 'file_change': {
                const changes = Array.isArray(item.changes) ? item.changes.filter(isObject) : [];
                const detail = changes.map(c => `${String(c.kind ?? '?')} ${String(c.path ?? '?')}`).join(', ');
                this.emit({ kind: 'tool_call', name: 'apply_patch', detail: oneLine(detail) });
                if (item.status === 'failed')
                    this.emit({ kind: 'tool_result', ok: false, detail: 'the patch failed' });
                break;
            }
            case 'mcp_tool_call':
                this.emit({
                    kind: 'tool_result',
                    ok: item.status !== 'failed',
                    detail: oneLine(JSON.stringify(item.result ?? item.error ?? ''), 120)
                });
                break;
            case 'web_search':
                this.emit({ kind: 'tool_call', name: 'web_search', detail: oneLine(str(item.query) ?? '') });
                break;
            case 'error':
                this.emit({ kind: 'error', message: oneLine(str(item.message) ?? '', 300) });
                break;
        }
    }
    onUsage(usage) {
        this.sawUsage = true;
        this.totals.input += num(usage.input_tokens);
        this.totals.cached += num(usage.cached_input_tokens);
        this.totals.cacheWrite += num(usage.cache_write_input_tokens);
        this.totals.output += num(usage.output_tokens);
        this.liveTokens = Math.max(this.liveTokens, this.totals.input + this.totals.output);
        const report = this.report(this.totals);
        this.emit({ kind: 'usage', usage: report });
        const cached = report.cache_read > 0 ? ` · ${report.cache_read} cached` : '';
        this.emit({
            kind: 'result',
            isError: false,
            summary: `[turn completed] ${report.input} input${cached} · ${report.output} output tokens`
        });
    }
    onError(message) {
        if (/^Reconnecting\.\.\./.test(message)) {
            this.retries++;
            this.lastRetryError = oneLine(message.replace(/^Reconnecting\.\.\.\s*\S+\s*/, ''), 160);
            this.emit({ kind: 'notice', message: `[api retry] ${oneLine(message, 200)}` });
            return;
        }
        this.lastError = message;
        this.emit({ kind: 'error', message: oneLine(message, 300) });
    }
    onTurnFailed(message) {
        const said = oneLine(message ?? this.lastError ?? 'turn failed', 300);
        this.isError = true;
        this.failure = this.failureOf(said);
        this.emit({ kind: 'result', isError: true, summary: `[turn failed] ${said}` });
    }
    failureOf(message) {
        if (USAGE_LIMIT.test(message)) {
            const resetsAt = resetFromMessage(message);
            return { kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) };
        }
        return { kind: 'api_error', message };
    }
}
/** codex exec with --json (added unless the user gave it): the JSONL reader. */
const codexPreset = {
    name: 'codex',
    jsonStream: true,
    argv: userArgv => codexArgv(userArgv),
    read: (_prompt, hooks, context) => new CodexStreamReader(hooks, context ? codexModel(context.argv, context.env) : undefined, context ? codexHomeOf(context.env) : undefined)
};
/** codex exec run exactly as written, without --json (ralphify's argv): read as plain text. */
const codexPlainPreset = {
    name: 'codex',
    jsonStream: false,
    argv: userArgv => [...userArgv],
    read: prompt => genericReader(prompt)
};
/** Whether the user already asked codex for JSON output. */
const codexAskedForJson = (argv) => hasOption(argv, JSON_FLAGS);

;// CONCATENATED MODULE: ./src/agents/gemini-telemetry.ts
// Gemini CLI's usage turn by turn. Its stream-json says what a run used only in its last `result` event, so
// alone it cannot be held to a dollar budget mid-run. Its local telemetry can: with GEMINI_TELEMETRY_TARGET=local
// and an outfile, gemini 0.61 appends a `gemini_cli.api_response` log record for every model response
// (input_token_count, cached_content_token_count, output_token_count, thoughts_token_count, tool_token_count,
// model), exported in batches every 5 seconds (the OpenTelemetry BatchLogRecordProcessor's default). The file
// holds pretty-printed JSON values one after another (packages/core/src/telemetry/file-exporters.ts); the
// records' attributes are read line by line, never the whole (large) values.


/** Variables the user may have set for gemini's telemetry: then theirs stays, and no file is read. */
const GEMINI_TELEMETRY_PREFIX = 'GEMINI_TELEMETRY_';
/** How often the telemetry file is read (it is written every 5 s). */
const POLL_MS = 500;
const ATTRIBUTE = /^ {4}"(event\.name|model|input_token_count|output_token_count|cached_content_token_count|thoughts_token_count|tool_token_count)": (.*?),?$/;
/** Reads gemini's telemetry file as it grows; `onUsage` gets the run's totals after each model response. */
class GeminiTelemetry {
    onUsage;
    file;
    lines;
    totals = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
    /** Attributes of the top-level value being read. */
    record = new Map();
    responses = 0;
    constructor(onUsage) {
        this.onUsage = onUsage;
        this.lines = new LineSplitter(line => this.onLine(line));
        this.file = WatchedFile.named({
            name: 'telemetry.json',
            pollMs: POLL_MS,
            mode: 'appended',
            onData: chunk => this.lines.push(chunk)
        });
    }
    /** The variables that make gemini write the file: local target, no prompts logged. */
    get env() {
        return {
            GEMINI_TELEMETRY_ENABLED: 'true',
            GEMINI_TELEMETRY_TARGET: 'local',
            GEMINI_TELEMETRY_OUTFILE: this.file.path,
            GEMINI_TELEMETRY_LOG_PROMPTS: 'false'
        };
    }
    close() {
        this.file.close();
        this.lines.end();
    }
    onLine(line) {
        if (line === '{')
            this.record = new Map();
        else if (line === '}')
            this.endRecord();
        else {
            const match = ATTRIBUTE.exec(line);
            if (match)
                this.record.set(match[1], match[2]);
        }
    }
    endRecord() {
        const record = this.record;
        this.record = new Map();
        if (record.get('event.name') !== '"gemini_cli.api_response"')
            return;
        const count = (name) => {
            const value = Number(record.get(name) ?? 0);
            return Number.isFinite(value) && value > 0 ? value : 0;
        };
        // As the final stats count them: the prompt includes the cached tokens; thoughts and tool tokens are output.
        const cached = count('cached_content_token_count');
        this.totals.input += Math.max(0, count('input_token_count') - cached);
        this.totals.cache_read += cached;
        this.totals.output +=
            count('output_token_count') + count('thoughts_token_count') + count('tool_token_count');
        try {
            const model = JSON.parse(record.get('model') ?? 'null');
            if (typeof model === 'string' && model)
                this.totals.model = model;
        }
        catch {
            // a model we cannot read leaves the last one
        }
        this.responses++;
        this.onUsage({ ...this.totals });
    }
}

;// CONCATENATED MODULE: ./src/agents/gemini.ts
// Gemini CLI with `--output-format stream-json` (added unless the user chose a format). Events, as
// google-gemini/gemini-cli prints them (packages/core/src/output/types.ts): init{session_id, model},
// message{role, content, delta}, tool_use{tool_name, tool_id, parameters}, tool_result{tool_id, status,
// output, error}, error{severity, message}, result{status, error, stats{total_tokens, input_tokens,
// output_tokens, cached, input, duration_ms, tool_calls}}. Tokens only: the cost is estimated. The stream says
// the usage only at the end; turn by turn it comes from gemini's local telemetry file (gemini-telemetry.ts),
// so a dollar budget can stop a run mid-way, a few seconds after the response that crossed it. Fatal errors
// end with a `result` whose status is "error" and an exit code (packages/core/src/utils/errors.ts): 41 auth,
// 42 input, 44 sandbox, 52 config, 53 turn limit, 54 tool, 130 cancelled.




const FORMAT = ['--output-format', '-o'];
const isGeminiCommand = (argv) => programStem(argv[0]) === 'gemini';
/** The output format the user chose, if any. */
const geminiFormat = (argv) => optionValue(argv, FORMAT);
function geminiArgv(userArgv) {
    return hasOption(userArgv, FORMAT) ? [...userArgv] : [...userArgv, '--output-format', 'stream-json'];
}
/** Exit codes of gemini's FatalError classes. */
const GEMINI_EXIT_FAILURES = {
    41: { kind: 'auth_error', message: 'gemini could not authenticate (exit 41)' },
    42: { kind: 'input_error', message: 'gemini refused its input (exit 42)' },
    44: { kind: 'error', message: 'gemini could not set up its sandbox (exit 44)' },
    52: { kind: 'error', message: 'gemini found its configuration invalid (exit 52)' },
    53: { kind: 'max_turns', message: 'gemini reached its session turn limit (exit 53)' },
    54: { kind: 'error', message: 'a gemini tool failed fatally (exit 54)' },
    130: { kind: 'error', message: 'gemini was cancelled (exit 130)' }
};
function failureOf(type, message) {
    if (USAGE_LIMIT.test(`${type ?? ''} ${message}`)) {
        const resetsAt = resetFromMessage(message);
        return { kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) };
    }
    switch (type) {
        case 'FatalTurnLimitedError':
            return { kind: 'max_turns', message };
        case 'FatalInputError':
            return { kind: 'input_error', message };
        case 'FatalAuthenticationError':
            return { kind: 'auth_error', message };
    }
    return { kind: /api error/i.test(message) ? 'api_error' : 'error', message };
}
class GeminiStreamReader extends JsonLinesReader {
    model;
    /** Assistant text of the current turn, sent as deltas. */
    pending = '';
    sawEvent = false;
    sawResult = false;
    tools = new Map();
    /** Usage turn by turn, from gemini's local telemetry (see gemini-telemetry.ts). */
    telemetry;
    env;
    constructor(hooks, agentEnv = {}) {
        super(hooks);
        const ownTelemetry = Object.keys(agentEnv).filter(name => name.startsWith(GEMINI_TELEMETRY_PREFIX));
        if (ownTelemetry.length > 0) {
            this.notes.push(`gemini's own telemetry settings are in its environment (${ownTelemetry.join(', ')}): its usage is known only when a run ends`);
            return;
        }
        this.telemetry = new GeminiTelemetry(usage => {
            // The result's stats are the final word; what the telemetry adds afterwards was already counted.
            if (!this.sawResult)
                this.emit({ kind: 'usage', usage: { ...usage, ...(this.model ? { model: this.model } : {}) } });
        });
        this.env = this.telemetry.env;
    }
    onJson(event) {
        if (typeof event.type !== 'string')
            return;
        this.sawEvent = true;
        if (event.type !== 'message')
            this.flush();
        switch (event.type) {
            case 'init':
                if (typeof event.model === 'string')
                    this.model = event.model;
                this.emit({
                    kind: 'notice',
                    message: `[session ${String(event.session_id ?? '?')}] model ${String(event.model ?? '?')}`
                });
                break;
            case 'message':
                if (event.role === 'assistant')
                    this.onAssistant(str(event.content) ?? '', event.delta === true);
                break;
            case 'tool_use': {
                const name = str(event.tool_name) ?? '?';
                this.tools.set(String(event.tool_id ?? ''), name);
                // A tool call ends the turn's text: the final message is what comes after the last one.
                this.finalMessage = undefined;
                this.emit({ kind: 'tool_call', name, detail: describeToolInput(event.parameters) });
                break;
            }
            case 'tool_result': {
                const ok = event.status !== 'error';
                const error = isObject(event.error) ? str(event.error.message) : undefined;
                this.emit({ kind: 'tool_result', ok, detail: oneLine(error ?? str(event.output) ?? '', 120) });
                break;
            }
            case 'error': {
                const message = oneLine(str(event.message) ?? '', 300);
                if (event.severity === 'warning')
                    this.emit({ kind: 'notice', message: `[warning] ${message}` });
                else
                    this.emit({ kind: 'error', message });
                break;
            }
            case 'result':
                this.onResult(event);
                break;
        }
    }
    onAssistant(content, delta) {
        if (!delta)
            this.flush();
        this.pending += content;
        this.finalMessage = (this.finalMessage ?? '') + content;
        if (!delta)
            this.flush();
    }
    /** The turn's text so far becomes one transcript entry. */
    flush() {
        if (this.pending === '')
            return;
        this.emit({ kind: 'text', text: this.pending });
        this.pending = '';
    }
    onResult(event) {
        this.sawResult = true;
        if (isObject(event.stats))
            this.emit({ kind: 'usage', usage: this.usageOf(event.stats) });
        const isError = event.status === 'error';
        this.isError = isError;
        const error = isObject(event.error) ? event.error : undefined;
        if (isError) {
            const message = oneLine(str(error?.message) ?? 'gemini reported an error', 300);
            this.failure = failureOf(str(error?.type), message);
        }
        const calls = isObject(event.stats) && event.stats.tool_calls !== undefined
            ? ` · ${String(event.stats.tool_calls)} tool calls`
            : '';
        this.emit({
            kind: 'result',
            isError,
            summary: `[result] ${String(event.status ?? '?')}${error ? `: ${oneLine(str(error.message) ?? '', 200)}` : ''}${calls}`
        });
    }
    /** input_tokens counts the cached ones; total_tokens also counts thinking and tool tokens (billed as output). */
    usageOf(stats) {
        const prompt = num(stats.input_tokens);
        const cached = num(stats.cached);
        const output = num(stats.output_tokens);
        const extra = Math.max(0, num(stats.total_tokens) - prompt - output);
        const report = {
            input: stats.input !== undefined ? num(stats.input) : Math.max(0, prompt - cached),
            output: output + extra,
            cache_read: cached,
            cache_write: 0
        };
        if (this.model)
            report.model = this.model;
        return report;
    }
    end() {
        this.flush();
    }
    finish(stdoutText, exit) {
        // A last read first: a killed run's usage is what its telemetry said so far.
        this.telemetry?.close();
        // `--output-format json` prints one (pretty-printed) object at the end instead of a stream.
        if (!this.sawEvent)
            this.readJsonOutput(stdoutText);
        if (!this.sawResult && this.sawEvent && !exit?.killed)
            this.notes.push('the stream ended without a result event');
        return super.finish(stdoutText, exit);
    }
    exitFailure(code, stderr) {
        const known = GEMINI_EXIT_FAILURES[code];
        if (known)
            return { kind: known.kind, message: `${known.message}${stderr ? `: ${stderr}` : ''}` };
        return super.exitFailure(code, stderr);
    }
    readJsonOutput(text) {
        let json;
        try {
            json = JSON.parse(text.trim());
        }
        catch {
            return;
        }
        if (!isObject(json))
            return;
        if (typeof json.response === 'string')
            this.finalMessage = json.response;
        const stats = isObject(json.stats) && isObject(json.stats.models) ? json.stats.models : undefined;
        if (stats) {
            const usage = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
            let main = ['', -1];
            for (const [model, metrics] of Object.entries(stats)) {
                const tokens = isObject(metrics) && isObject(metrics.tokens) ? metrics.tokens : {};
                const cached = num(tokens.cached);
                usage.input += Math.max(0, num(tokens.prompt) - cached);
                usage.cache_read += cached;
                usage.output += num(tokens.candidates) + num(tokens.thoughts) + num(tokens.tool);
                if (num(tokens.candidates) > main[1])
                    main = [model, num(tokens.candidates)];
            }
            if (main[0])
                usage.model = main[0];
            this.emit({ kind: 'usage', usage });
        }
        if (isObject(json.error)) {
            this.isError = true;
            this.failure = failureOf(str(json.error.type), oneLine(str(json.error.message) ?? 'error', 300));
            this.emit({ kind: 'error', message: this.failure.message });
        }
    }
}
/** gemini with a JSON output format (stream-json added unless the user chose one). */
const geminiPreset = {
    name: 'gemini',
    jsonStream: true,
    argv: userArgv => geminiArgv(userArgv),
    read: (_prompt, hooks, context) => new GeminiStreamReader(hooks, context?.env)
};
/** gemini run exactly as written with text output: read as plain text. */
const geminiPlainPreset = {
    name: 'gemini',
    jsonStream: false,
    argv: userArgv => [...userArgv],
    read: (prompt, hooks) => genericReader(prompt, hooks, { exitFailures: GEMINI_EXIT_FAILURES })
};

;// CONCATENATED MODULE: ./src/agents/opencode.ts
// opencode (`opencode run`) with `--format json` (added unless the user gave a format). Each line is
// `{type, timestamp, sessionID, …}` as anomalyco/opencode prints it (packages/opencode/src/cli/cmd/run.ts):
// step_start, text, reasoning, tool_use and step_finish carry a `part`; `error` carries `error{name, data}`;
// newer builds end with `done{reason, rejected}` (permissions it auto-rejected). step_finish's part has the
// step's `cost` in dollars and `tokens{input, output, reasoning, cache{read, write}}` (message-v2.ts
// StepFinishPart): the cost is reported, summed over steps (tokens.total, when present, is cumulative and
// is not summed).



const isOpencodeRun = (argv) => programStem(argv[0]) === 'opencode' && subcommandIndex(argv, ['run']) !== -1;
/** The output format the user chose, if any. */
const opencodeFormat = (argv) => optionValue(argv, ['--format']);
function opencodeArgv(userArgv) {
    if (hasOption(userArgv, ['--format']))
        return [...userArgv];
    return insertAfter(userArgv, subcommandIndex(userArgv, ['run']), ['--format', 'json']);
}
class OpencodeStreamReader extends JsonLinesReader {
    totals = {
        input: 0,
        output: 0,
        cache_read: 0,
        cache_write: 0,
        reportedUsd: 0
    };
    steps = 0;
    /** Text parts since the last tool call: the final message. */
    tail = [];
    constructor(hooks) {
        super(hooks);
    }
    onJson(event) {
        const part = isObject(event.part) ? event.part : {};
        switch (event.type) {
            case 'text': {
                const text = str(part.text) ?? '';
                this.tail.push(text);
                this.finalMessage = this.tail.join('\n\n');
                this.emit({ kind: 'text', text });
                break;
            }
            case 'tool_use':
                this.onTool(part);
                break;
            case 'step_finish':
                this.onStep(part);
                break;
            case 'error':
                this.onError(isObject(event.error) ? event.error : {});
                break;
            case 'done':
                for (const permission of Array.isArray(event.rejected) ? event.rejected : [])
                    if (typeof permission === 'string')
                        this.deny({ tool: permission });
                if (this.denials.length > 0)
                    this.emit({
                        kind: 'notice',
                        message: `[permission denied] ${this.denials.map(d => d.tool).join(', ')}`
                    });
                break;
        }
    }
    onTool(part) {
        const state = isObject(part.state) ? part.state : {};
        const name = str(part.tool) ?? '?';
        this.tail = [];
        this.finalMessage = undefined;
        this.emit({
            kind: 'tool_call',
            name,
            detail: describeToolInput(state.input) || oneLine(str(state.title) ?? '')
        });
        const ok = state.status !== 'error';
        const detail = ok ? str(state.output) || str(state.title) || '' : str(state.error) || 'failed';
        this.emit({ kind: 'tool_result', ok, detail: oneLine(detail, 120) });
    }
    onStep(part) {
        this.steps++;
        const tokens = isObject(part.tokens) ? part.tokens : {};
        const cache = isObject(tokens.cache) ? tokens.cache : {};
        this.totals.input += num(tokens.input);
        // Reasoning tokens are billed as output.
        this.totals.output += num(tokens.output) + num(tokens.reasoning);
        this.totals.cache_read += num(cache.read);
        this.totals.cache_write += num(cache.write);
        this.totals.reportedUsd = (this.totals.reportedUsd ?? 0) + num(part.cost);
        const model = isObject(part.model) ? str(part.model.modelID) : undefined;
        if (model)
            this.totals.model = model;
        this.emit({ kind: 'usage', usage: { ...this.totals } });
    }
    onError(error) {
        const data = isObject(error.data) ? error.data : {};
        const name = str(error.name) ?? 'Error';
        const message = oneLine(str(data.message) ?? name, 300);
        this.isError = true;
        this.failure = this.failureOf(name, message, data.statusCode);
        this.emit({ kind: 'error', message: `${name}: ${message}` });
    }
    failureOf(name, message, status) {
        // A 429 is a usage limit only when it says quota; a per-minute rate limit is an API error.
        if (USAGE_LIMIT.test(message) || (status === 429 && /quota/i.test(message))) {
            const resetsAt = resetFromMessage(message);
            return { kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) };
        }
        if (name === 'ProviderAuthError')
            return { kind: 'auth_error', message };
        if (name === 'APIError')
            return { kind: 'api_error', message };
        return { kind: 'error', message };
    }
    end(exit) {
        if (this.steps === 0 && !exit?.killed)
            this.notes.push('opencode reported no step_finish: its cost is unknown');
        const summary = `[done] ${this.steps} steps · $${(this.totals.reportedUsd ?? 0).toFixed(4)}`;
        if (this.steps > 0)
            this.emit({ kind: 'result', isError: this.isError === true, summary });
    }
}
const opencodePreset = {
    name: 'opencode',
    jsonStream: true,
    argv: userArgv => opencodeArgv(userArgv),
    read: (_prompt, hooks) => new OpencodeStreamReader(hooks)
};
const opencodePlainPreset = {
    name: 'opencode',
    jsonStream: false,
    argv: userArgv => [...userArgv],
    read: prompt => genericReader(prompt)
};

;// CONCATENATED MODULE: ./src/agents/qwen.ts
// qwen-code (`qwen`) with `--output-format stream-json` (added unless the user chose a format). Its stream has
// Claude Code's shape (system/init, assistant with per-turn usage, user tool results, a last `result`), as
// qwen 0.24.4 prints it against a Chat Completions server, but no dollars: the tokens are priced from the
// table, turn by turn, so a dollar cap can stop a run mid-way. The loop's turn cap goes in as
// `--max-session-turns`.



const qwen_FORMAT = ['--output-format', '-o'];
const isQwenCommand = (argv) => programStem(argv[0]) === 'qwen';
/** The output format the user chose, if any. */
const qwenFormat = (argv) => optionValue(argv, qwen_FORMAT);
function qwenArgv(userArgv, caps = {}) {
    const argv = hasOption(userArgv, qwen_FORMAT) ? [...userArgv] : [...userArgv, '--output-format', 'stream-json'];
    if (caps.maxTurns !== undefined && !hasOption(userArgv, ['--max-session-turns']))
        argv.push('--max-session-turns', String(caps.maxTurns));
    return argv;
}
/** qwen with its stream-json (added unless the user chose a format). */
const qwenPreset = {
    name: 'qwen',
    jsonStream: true,
    argv: (userArgv, caps) => qwenArgv(userArgv, caps),
    read: (_prompt, hooks) => new ClaudeStreamReader(hooks, 'qwen')
};
/** qwen run exactly as written with text output: read as plain text. */
const qwenPlainPreset = {
    name: 'qwen',
    jsonStream: false,
    argv: userArgv => [...userArgv],
    read: prompt => genericReader(prompt)
};

;// CONCATENATED MODULE: ./scripts/install-agent-clis.json
const install_agent_clis_namespaceObject = /*#__PURE__*/JSON.parse('{"X":{"claude":{"package":"@anthropic-ai/claude-code","version":"2.1.332","postinstall":"install.cjs"},"codex":{"package":"@openai/codex","version":"0.169.0"},"gemini":{"package":"@google/gemini-cli","version":"0.61.0"},"opencode":{"package":"opencode-ai","version":"1.18.33","postinstall":"postinstall.mjs"},"qwen":{"package":"@qwen-code/qwen-code","version":"0.24.4","executables":["vendor/ripgrep/x64-linux/rg","vendor/ripgrep/arm64-linux/rg","vendor/ripgrep/x64-darwin/rg","vendor/ripgrep/arm64-darwin/rg"]}}}');
;// CONCATENATED MODULE: ./src/agents/clis.ts
// The agent CLIs ralph-action can install and has proven live: each one's npm package at the version the
// live tier tests (scripts/install-agent-clis.json, the one place to bump them), and the preset that reads it.



const PINS = install_agent_clis_namespaceObject.X;
const AGENT_CLIS = Object.keys(PINS).map(name => ({
    name,
    bin: name,
    ...PINS[name]
}));
/** The CLI called `name`, or undefined when ralph-action does not know it. */
function agentCli(name) {
    return AGENT_CLIS.find(cli => cli.name === name);
}
/** The known CLI an agent command line runs (`claude -p …` → claude), or undefined. */
function agentCliOf(agentArgv) {
    return agentCli(programStem(agentArgv[0]));
}
/** What each CLI reads at start-up besides its environment (the agent's user gets a copy of these only). */
const SETTINGS = {
    claude: [{ home: '.claude', variable: 'CLAUDE_CONFIG_DIR' }, { home: '.claude.json' }],
    codex: [{ home: '.codex', variable: 'CODEX_HOME' }],
    gemini: [{ home: '.gemini' }],
    opencode: [
        { home: '.config/opencode', config: true },
        { home: '.config/opencode-config/opencode.json', variable: 'OPENCODE_CONFIG', onlyVariable: true }
    ],
    qwen: [{ home: '.qwen' }]
};
/**
 * The settings the CLI an agent command runs reads, as the runner's user has them (`env` is the environment
 * the agent would get as that user: its HOME, XDG_CONFIG_HOME, CODEX_HOME…). Empty for a CLI we do not know.
 */
function agentSettings(agentArgv, env) {
    const cli = agentCliOf(agentArgv);
    const home = env.HOME;
    if (!cli || !home)
        return [];
    const found = [];
    for (const place of SETTINGS[cli.name]) {
        const moved = place.variable ? env[place.variable] : undefined;
        if (moved)
            found.push({ from: external_node_path_default().resolve(moved), to: place.home, variable: place.variable });
        else if (place.onlyVariable)
            continue;
        else if (place.config && env.XDG_CONFIG_HOME)
            found.push({
                from: external_node_path_default().join(env.XDG_CONFIG_HOME, external_node_path_default().relative('.config', place.home)),
                to: place.home
            });
        else
            found.push({ from: external_node_path_default().join(home, place.home), to: place.home });
    }
    return found;
}

;// CONCATENATED MODULE: ./src/agents/prices.ts
const PRICE_TABLE_VERSION = '2026-11-26';
const ANTHROPIC_PRICING = 'https://platform.claude.com/docs/en/about-claude/pricing';
const ANTHROPIC_PRICING_ZH = 'https://platform.claude.com/docs/zh-CN/about-claude/pricing';
const OPENAI_QUOTED = 'https://tokenmix.ai/blog/openai-api-cost-2026-gpt-5-5-5-4-nano-batch (quoting developers.openai.com/api/docs/pricing)';
const GEMINI_QUOTED = 'https://deploybase.ai/articles/gemini-api-pricing (quoting ai.google.dev/gemini-api/docs/pricing)';
const PRICE_TABLE = [
    // Anthropic. Cache write = the 5-minute write (claude's default); 1-hour writes cost more.
    {
        models: ['claude-fable-5-1', 'claude-mythos-5-1'],
        input: 10,
        output: 50,
        cache_read: 0.25,
        cache_write: 12.5,
        date: '2026-11-26',
        source: ANTHROPIC_PRICING,
        verified: 'official'
    },
    {
        models: ['claude-fable-5', 'claude-mythos-5'],
        input: 10,
        output: 50,
        cache_read: 1,
        cache_write: 12.5,
        date: '2026-11-26',
        source: ANTHROPIC_PRICING,
        verified: 'official'
    },
    {
        models: ['claude-opus-5-5'],
        input: 4,
        output: 20,
        cache_read: 0.2,
        cache_write: 5,
        date: '2026-11-26',
        source: 'https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview',
        verified: 'official'
    },
    {
        models: ['claude-opus-5', 'claude-opus-4-8', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-opus-4-5'],
        input: 5,
        output: 25,
        cache_read: 0.5,
        cache_write: 6.25,
        date: '2026-11-26',
        source: ANTHROPIC_PRICING,
        verified: 'official'
    },
    {
        models: ['claude-opus-4-1', 'claude-opus-4', 'claude-opus-4-0', 'claude-3-opus'],
        input: 15,
        output: 75,
        cache_read: 1.5,
        cache_write: 18.75,
        date: '2026-11-26',
        source: ANTHROPIC_PRICING,
        verified: 'official'
    },
    {
        models: ['claude-sonnet-5-5'],
        input: 2,
        output: 10,
        cache_read: 0.2,
        cache_write: 2.5,
        date: '2026-11-26',
        source: 'https://platform.claude.com/docs/zh-CN/models/sonnet-5-5/overview',
        verified: 'official',
        note: 'Third parties (github.com/kurofune/claudit v1.9.2, github.com/TheKrush/PromptFuel v1.0.23) report a cache-read cut ' +
            'to $0.10 on 2026-10-07, not seen on the official page we read: the higher price is kept.'
    },
    {
        models: ['claude-sonnet-5'],
        input: 2,
        output: 10,
        cache_read: 0.2,
        cache_write: 2.5,
        date: '2026-11-26',
        source: 'https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview',
        verified: 'official'
    },
    {
        models: [
            'claude-sonnet-4-6',
            'claude-sonnet-4-5',
            'claude-sonnet-4',
            'claude-sonnet-4-0',
            'claude-3-7-sonnet'
        ],
        input: 3,
        output: 15,
        cache_read: 0.3,
        cache_write: 3.75,
        date: '2026-11-26',
        source: ANTHROPIC_PRICING_ZH,
        verified: 'official',
        note: 'Prompts over 200K input tokens (1M-context beta) cost $6 / $22.50 on Sonnet 4 and 4.5; this table prices ' +
            'every request at the base rate. Claude Code 2.1.332 prices claude-sonnet-4-5 at exactly these rates ' +
            '(checked against its total_cost_usd in the live tests).'
    },
    {
        models: ['claude-haiku-5-5'],
        input: 0.1,
        output: 0.5,
        cache_read: 0.01,
        cache_write: 0.125,
        date: '2026-11-26',
        source: 'https://platform.claude.com/docs/about-claude/models/whats-new-opus-5 ("From $0.10 / $0.50")',
        verified: 'third-party',
        note: 'Prompts over 100K tokens cost $0.50 / $2.50 (cache $0.05 read, $0.625 write) per github.com/kurofune/claudit ' +
            'v1.9.2; the cache rates are third-party only. This table prices every request at the lower band.'
    },
    {
        models: ['claude-haiku-4-5'],
        input: 1,
        output: 5,
        cache_read: 0.1,
        cache_write: 1.25,
        date: '2026-11-26',
        source: ANTHROPIC_PRICING_ZH,
        verified: 'official'
    },
    {
        models: ['claude-3-5-haiku'],
        input: 0.8,
        output: 4,
        cache_read: 0.08,
        cache_write: 1,
        date: '2026-11-26',
        source: ANTHROPIC_PRICING_ZH,
        verified: 'official'
    },
    // OpenAI: no charge for cache writes. Standard tier, context under 270K tokens.
    {
        models: ['gpt-5.5'],
        input: 5,
        output: 30,
        cache_read: 0.5,
        cache_write: 0,
        date: '2026-11-26',
        source: OPENAI_QUOTED,
        verified: 'third-party',
        note: 'The same in https://www.morphllm.com/openai-api-pricing (June 2026); the official page itself was not in reach.'
    },
    {
        models: ['gpt-5.5-pro', 'gpt-5.4-pro'],
        input: 30,
        output: 180,
        cache_read: 30,
        cache_write: 0,
        date: '2026-11-26',
        source: OPENAI_QUOTED,
        verified: 'third-party',
        note: 'No cached-input discount is listed: cached tokens are priced as input.'
    },
    {
        models: ['gpt-5.4'],
        input: 2.5,
        output: 15,
        cache_read: 0.25,
        cache_write: 0,
        date: '2026-11-26',
        source: OPENAI_QUOTED,
        verified: 'third-party'
    },
    {
        models: ['gpt-5.4-mini'],
        input: 0.75,
        output: 4.5,
        cache_read: 0.075,
        cache_write: 0,
        date: '2026-11-26',
        source: OPENAI_QUOTED,
        verified: 'third-party'
    },
    {
        models: ['gpt-5.4-nano'],
        input: 0.2,
        output: 1.25,
        cache_read: 0.02,
        cache_write: 0,
        date: '2026-11-26',
        source: OPENAI_QUOTED,
        verified: 'third-party'
    },
    {
        models: ['gpt-5', 'gpt-5-codex', 'gpt-5.1', 'gpt-5.1-codex'],
        input: 1.25,
        output: 10,
        cache_read: 0.125,
        cache_write: 0,
        date: '2026-11-26',
        source: 'https://docs.rs/crate/openai-cost/latest/source/src/pricing.rs ("openai.com/api/pricing as of 2026-Q2")',
        verified: 'third-party',
        note: 'gpt-5.1 and the -codex variants are priced as gpt-5 without a source of their own: unverified.'
    },
    {
        models: ['gpt-5-mini'],
        input: 0.25,
        output: 2,
        cache_read: 0.025,
        cache_write: 0,
        date: '2026-11-26',
        source: 'none found in reach; the launch price as remembered',
        verified: 'unverified'
    },
    // Google: input_tokens include cached ones; thinking tokens are billed as output. Prompts up to 200K.
    {
        models: ['gemini-3-pro-preview', 'gemini-3-pro', 'gemini-3.1-pro-preview'],
        input: 2,
        output: 12,
        cache_read: 0.2,
        cache_write: 2,
        date: '2026-11-26',
        source: 'https://aifreeapi.com/en/posts/gemini-api-pricing-2026',
        verified: 'third-party',
        note: 'gemini-3.1-pro-preview is priced as 3 Pro without a source of its own: unverified.'
    },
    {
        models: ['gemini-2.5-pro'],
        input: 1.25,
        output: 10,
        cache_read: 0.125,
        cache_write: 1.25,
        date: '2026-11-26',
        source: GEMINI_QUOTED,
        verified: 'third-party',
        note: 'Prompts over 200K tokens cost $2.50 / $15; priced here at the base rate.'
    },
    {
        models: ['gemini-2.5-flash'],
        input: 0.3,
        output: 2.5,
        cache_read: 0.03,
        cache_write: 0.3,
        date: '2026-11-26',
        source: GEMINI_QUOTED,
        verified: 'third-party'
    },
    {
        models: ['gemini-2.5-flash-lite'],
        input: 0.1,
        output: 0.4,
        cache_read: 0.01,
        cache_write: 0.1,
        date: '2026-11-26',
        source: 'https://aifreeapi.com/en/posts/gemini-api-pricing-2026',
        verified: 'third-party'
    },
    // Alibaba Cloud (qwen-code's default models): priced per request by its input size.
    {
        models: ['qwen3-coder-plus'],
        input: 1,
        output: 5,
        cache_read: 0.2,
        cache_write: 1,
        date: '2026-11-26',
        source: 'https://docs.cline.bot/provider-config/qwen ("qwen3-coder-plus … $1.00/$5.00 per 1M tokens", international region)',
        verified: 'third-party',
        note: 'The lowest band (prompts up to 32K tokens): Alibaba Cloud prices each request by its input size, and larger ' +
            'prompts cost more (the official mainland-China page, https://help.aliyun.com/zh/model-studio/user-guide/qwen-coder, ' +
            'lists four bands from ¥4/¥16 to ¥20/¥200 per million). Cached input at 20% of the input price (the same page: ' +
            'implicit cache hits); cache writes are priced as input, without a source.'
    }
];
/**
 * The id the table is keyed by: lower case, without a provider prefix (`anthropic/`, `openai/`, `models/`,
 * Bedrock's `us.anthropic.`), a date or version suffix (`-20250929`, `-2026-04-23`, `-v1:0`), `-latest`
 * or claude's `[1m]`; claude ids with dots (`claude-sonnet-4.5`) get dashes.
 */
function normaliseModelId(model) {
    let id = model.trim().toLowerCase();
    id = id.replace(/\[[^\]]*\]$/, '');
    id = id.slice(id.lastIndexOf('/') + 1);
    id = id.replace(/^(?:[a-z]{2,4}\.)?anthropic\./, '');
    id = id.replace(/-v\d+(?::\d+)?$/, '');
    id = id.replace(/-latest$/, '');
    id = id.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, '');
    if (id.startsWith('claude-'))
        id = id.replace(/\./g, '-');
    return id;
}
const BY_MODEL = new Map();
for (const row of PRICE_TABLE)
    for (const model of row.models)
        BY_MODEL.set(model, row);
/** The price of a model, or undefined when the table does not know it (never a guess from a look-alike). */
function lookupPrice(model) {
    return model ? BY_MODEL.get(normaliseModelId(model)) : undefined;
}
/** Dollars for a run's tokens at list price, or undefined when its model is unknown or unnamed. */
function priceFromTable(usage) {
    const price = lookupPrice(usage.model);
    return price ? costAt(price, usage) : undefined;
}
/** The vendor a model id belongs to, by its family's prefix; undefined when no family matches. */
function vendorOfModel(model) {
    const id = model ? normaliseModelId(model) : '';
    if (id.startsWith('claude-'))
        return 'Anthropic';
    if (/^(?:gpt-|o\d|codex-|chatgpt-)/.test(id))
        return 'OpenAI';
    if (/^(?:gemini-|gemma-)/.test(id))
        return 'Google';
    if (/^(?:qwen|qwq-)/.test(id))
        return 'Alibaba';
    return undefined;
}
/** Each rate at the highest any of the vendor's rows has: an unlisted model never costs less than it could. */
function topPriceOf(vendor) {
    const rows = PRICE_TABLE.filter(row => vendorOfModel(row.models[0]) === vendor);
    const top = (rate) => Math.max(...rows.map(row => row[rate]));
    return {
        models: [],
        input: top('input'),
        output: top('output'),
        cache_read: top('cache_read'),
        cache_write: top('cache_write'),
        date: PRICE_TABLE_VERSION,
        source: `the highest ${vendor} rates in this table`,
        verified: 'unverified'
    };
}
/** Dollars for tokens at `price`'s rates (USD per million). */
function costAt(price, usage) {
    return ((usage.input * price.input +
        usage.output * price.output +
        usage.cache_read * price.cache_read +
        usage.cache_write * price.cache_write) /
        1e6);
}

;// CONCATENATED MODULE: ./src/agents/endpoints.ts
// How to point each agent CLI at a model server of your choosing (a local fake, a proxy, a gateway) and at
// nothing else: the variables to set and the files to write under its HOME. The one place that knows each
// CLI's base-URL setting; the live tier (__tests__/agents-live) proves every recipe against the real CLIs.


/** The wire protocol each CLI speaks to its model. */
const AGENT_WIRE = {
    claude: 'anthropic-messages',
    codex: 'openai-responses',
    gemini: 'gemini',
    // opencode speaks many; ralph-action points it at an OpenAI-compatible endpoint.
    opencode: 'openai-chat',
    qwen: 'openai-chat'
};
/** Settings gemini and qwen share (qwen-code is a fork of gemini-cli): no telemetry, no update checks. */
function quietSettings(selectedType) {
    return {
        security: { auth: { selectedType }, folderTrust: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true }
    };
}
const json = (value) => `${JSON.stringify(value, null, 2)}\n`;
/** Per million tokens for opencode's model entry: its own dollar figure is then the price table's. */
function opencodeCost(model) {
    const price = lookupPrice(model);
    return price
        ? {
            input: price.input,
            output: price.output,
            cache_read: price.cache_read,
            cache_write: price.cache_write
        }
        : undefined;
}
/**
 * What pointing `cli` at `endpoint` takes, for a CLI whose HOME is `home`. Everything else the CLI would
 * reach at start-up (update checks, telemetry, model catalogues, plugins) is turned off.
 */
function endpointSetup(cli, endpoint, home) {
    const { url, apiKey, model, maxRetries } = endpoint;
    switch (cli) {
        case 'claude':
            return {
                env: {
                    ANTHROPIC_BASE_URL: url,
                    ANTHROPIC_API_KEY: apiKey,
                    ...(model ? { ANTHROPIC_MODEL: model } : {}),
                    // Without it claude also calls its vendor's host for non-essential traffic.
                    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
                    DISABLE_AUTOUPDATER: '1',
                    DISABLE_TELEMETRY: '1',
                    DISABLE_ERROR_REPORTING: '1',
                    ...(maxRetries !== undefined ? { CLAUDE_CODE_MAX_RETRIES: String(maxRetries) } : {})
                },
                files: {},
                args: []
            };
        case 'codex': {
            // codex ignores OPENAI_BASE_URL: a custom provider in $CODEX_HOME/config.toml names the server.
            const codexHome = external_node_path_default().join(home, '.codex');
            const retries = maxRetries === undefined
                ? []
                : [`request_max_retries = ${maxRetries}`, `stream_max_retries = ${maxRetries}`];
            const config = [
                '# Written by ralph-action: codex against one model server, nothing else.',
                ...(model ? [`model = ${JSON.stringify(model)}`] : []),
                'model_provider = "ralph-endpoint"',
                'check_for_update_on_startup = false',
                '',
                '[analytics]',
                'enabled = false',
                '',
                '[feedback]',
                'enabled = false',
                '',
                '[model_providers.ralph-endpoint]',
                'name = "ralph-action model endpoint"',
                `base_url = ${JSON.stringify(`${url}/v1`)}`,
                'env_key = "OPENAI_API_KEY"',
                'wire_api = "responses"',
                ...retries,
                ''
            ].join('\n');
            return {
                env: { CODEX_HOME: codexHome, OPENAI_API_KEY: apiKey },
                files: { [external_node_path_default().join(codexHome, 'config.toml')]: config },
                args: []
            };
        }
        case 'gemini':
            // The variables alone fail with exit 41: the settings must select API-key authentication.
            return {
                env: {
                    GEMINI_API_KEY: apiKey,
                    GOOGLE_GEMINI_BASE_URL: url,
                    ...(model ? { GEMINI_MODEL: model } : {})
                },
                files: { [external_node_path_default().join(home, '.gemini', 'settings.json')]: json(quietSettings('gemini-api-key')) },
                args: []
            };
        case 'qwen':
            return {
                env: {
                    OPENAI_API_KEY: apiKey,
                    OPENAI_BASE_URL: `${url}/v1`,
                    ...(model ? { OPENAI_MODEL: model } : {}),
                    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1'
                },
                files: { [external_node_path_default().join(home, '.qwen', 'settings.json')]: json(quietSettings('openai')) },
                args: []
            };
        case 'opencode': {
            // opencode picks a provider's model by name: without one it would not use this endpoint at all.
            if (!model)
                throw new Error('opencode needs a model to be pointed at a model endpoint');
            const cost = opencodeCost(model);
            const config = {
                $schema: 'https://opencode.ai/config.json',
                model: `ralph/${model}`,
                small_model: `ralph/${model}`,
                autoupdate: false,
                share: 'disabled',
                // `opencode run` rejects what would ask: edits and commands are the agent's job; the web is not.
                permission: { edit: 'allow', bash: 'allow', webfetch: 'deny' },
                provider: {
                    ralph: {
                        npm: '@ai-sdk/openai-compatible',
                        name: 'ralph-action model endpoint',
                        options: { baseURL: `${url}/v1`, apiKey, includeUsage: true },
                        models: {
                            [model]: {
                                tool_call: true,
                                ...(cost ? { cost } : {}),
                                limit: { context: 200000, output: 8192 }
                            }
                        }
                    }
                }
            };
            const file = external_node_path_default().join(home, '.config', 'opencode', 'ralph-endpoint.json');
            return {
                env: {
                    OPENCODE_CONFIG: file,
                    OPENCODE_DISABLE_MODELS_FETCH: '1',
                    OPENCODE_DISABLE_AUTOUPDATE: '1',
                    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
                    OPENCODE_DISABLE_SHARE: '1',
                    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1'
                },
                files: { [file]: json(config) },
                args: ['--pure']
            };
        }
    }
}

;// CONCATENATED MODULE: ./src/agents/index.ts
// Agent presets: recognised by the agent command's program name; anything else is generic.



















/** The preset for an agent command line. */
function presetFor(agentArgv, options) {
    const generic = genericPresetWith(options.cost);
    if (!options.presets)
        return generic;
    const all = (options.flags ?? 'all') === 'all';
    if (isClaudeCommand(agentArgv[0]))
        return claudePreset;
    if (isCodexExec(agentArgv))
        return all || codexAskedForJson(agentArgv) ? codexPreset : codexPlainPreset;
    if (isGeminiCommand(agentArgv)) {
        const format = geminiFormat(agentArgv);
        if (format === 'text')
            return geminiPlainPreset;
        return all || format !== undefined ? geminiPreset : geminiPlainPreset;
    }
    if (isQwenCommand(agentArgv)) {
        // Only stream-json is read as a stream (`-o json` prints one document at the end).
        const format = qwenFormat(agentArgv);
        if (format !== undefined)
            return format === 'stream-json' ? qwenPreset : qwenPlainPreset;
        return all ? qwenPreset : qwenPlainPreset;
    }
    if (isOpencodeRun(agentArgv)) {
        const format = opencodeFormat(agentArgv);
        if (format !== undefined)
            return format === 'json' ? opencodePreset : opencodePlainPreset;
        return all ? opencodePreset : opencodePlainPreset;
    }
    if (isAiderCommand(agentArgv))
        return aiderPreset;
    return generic;
}

;// CONCATENATED MODULE: ./src/proc/environ.ts
// Linux lets any process of the same user read another's initial environment (/proc/<pid>/environ: the
// strings the kernel put on the stack at exec, whatever the process did to its environment since). The
// agent runs as a child of this process, so without this it could read the tokens the runner started us
// with (INPUT_GITHUB-TOKEN, ACTIONS_RUNTIME_TOKEN) from /proc/<our pid>/environ. This overwrites their values
// in that block, after moving the live variables to the heap (setenv copies them), where reading them needs
// ptrace rights a child does not have over its parent. Linux only; elsewhere it does nothing.

/** The initial environment's address range, from /proc/self/stat (fields 50 and 51, since Linux 3.5). */
function environRange() {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start)
        return undefined;
    return { start, end };
}
/**
 * Overwrites, in this process's initial environment block, the value of every variable `secret` names,
 * keeping each one usable by this process (process.env still answers it, from a heap copy).
 */
function scrubInitialEnvironment(secret) {
    if (process.platform !== 'linux')
        return { scrubbed: [], skipped: 'not Linux' };
    let range;
    try {
        range = environRange();
    }
    catch (error) {
        return { scrubbed: [], skipped: `/proc/self/stat: ${error.message}` };
    }
    if (!range)
        return { scrubbed: [], skipped: '/proc/self/stat has no environment range' };
    // Move the live variables off the block first: unsetenv drops the pointer into it, setenv makes a copy.
    for (const name of Object.keys(process.env)) {
        if (!secret(name))
            continue;
        const value = process.env[name];
        delete process.env[name];
        process.env[name] = value;
    }
    let fd;
    try {
        fd = openSync('/proc/self/mem', 'r+');
    }
    catch (error) {
        return { scrubbed: [], skipped: `/proc/self/mem: ${error.message}` };
    }
    try {
        const block = Buffer.alloc(range.end - range.start);
        const read = readSync(fd, block, 0, block.length, range.start);
        const scrubbed = [];
        let at = 0;
        while (at < read) {
            let nul = block.indexOf(0, at);
            if (nul < 0 || nul > read)
                nul = read;
            const eq = block.indexOf(0x3d, at); // '='
            if (eq > at && eq < nul) {
                const name = block.toString('latin1', at, eq);
                if (secret(name) && nul > eq + 1) {
                    block.fill(0, eq + 1, nul);
                    writeSync(fd, block, eq + 1, nul - eq - 1, range.start + eq + 1);
                    scrubbed.push(name);
                }
            }
            at = nul + 1;
        }
        return { scrubbed };
    }
    catch (error) {
        return { scrubbed: [], skipped: `/proc/self/mem: ${error.message}` };
    }
    finally {
        closeSync(fd);
    }
}

;// CONCATENATED MODULE: external "node:child_process"
const external_node_child_process_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:child_process");
;// CONCATENATED MODULE: external "node:perf_hooks"
const external_node_perf_hooks_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:perf_hooks");
;// CONCATENATED MODULE: ./src/proc/capture.ts
/**
 * A byte buffer that keeps at most `capacity` bytes: while it has room it grows (so a 10-byte output
 * costs 10 bytes, not the whole limit), once full it overwrites its oldest bytes (a ring).
 */
class ByteRing {
    capacity;
    buf = Buffer.alloc(0);
    start = 0;
    length = 0;
    constructor(capacity) {
        this.capacity = capacity;
    }
    append(data) {
        const cap = this.capacity;
        if (cap === 0 || data.length === 0)
            return;
        if (data.length >= cap) {
            // Only the last `cap` bytes can survive; copy them instead of wrapping round and round.
            if (this.buf.length < cap)
                this.buf = Buffer.allocUnsafe(cap);
            data.copy(this.buf, 0, data.length - cap);
            this.start = 0;
            this.length = cap;
            return;
        }
        const needed = this.length + data.length;
        if (this.buf.length < cap && needed > this.buf.length) {
            // Not wrapped yet (start is 0 until the buffer reaches its capacity), so a plain copy keeps the order.
            const grown = Buffer.allocUnsafe(Math.min(cap, Math.max(needed, this.buf.length * 2, 4096)));
            this.buf.copy(grown, 0, 0, this.length);
            this.buf = grown;
        }
        const size = this.buf.length;
        const pos = (this.start + this.length) % size;
        const first = Math.min(data.length, size - pos);
        data.copy(this.buf, pos, 0, first);
        if (first < data.length)
            data.copy(this.buf, 0, first);
        if (needed > size) {
            this.start = (this.start + (needed - size)) % size;
            this.length = size;
        }
        else {
            this.length = needed;
        }
    }
    /** A copy of the kept bytes, oldest first. */
    bytes() {
        const out = Buffer.allocUnsafe(this.length);
        const firstLen = Math.min(this.length, this.buf.length - this.start);
        this.buf.copy(out, 0, this.start, this.start + firstLen);
        if (firstLen < this.length)
            this.buf.copy(out, firstLen, 0, this.length - firstLen);
        return out;
    }
}
/**
 * Keeps the first half and the last half of a stream of chunks, whatever its size: memory is bounded by
 * `limit` bytes (plus nothing per chunk, since chunks are copied, never retained).
 */
class BoundedCapture {
    limit;
    head;
    tail;
    totalBytes = 0;
    constructor(limit) {
        this.limit = limit;
        const headLimit = Math.floor(limit / 2);
        this.head = new ByteRing(headLimit);
        // The odd byte goes to the tail: the end of an output is where errors usually are.
        this.tail = new ByteRing(limit - headLimit);
    }
    push(chunk) {
        this.totalBytes += chunk.length;
        const roomInHead = this.head.capacity - this.head.length;
        if (roomInHead > 0) {
            this.head.append(roomInHead >= chunk.length ? chunk : chunk.subarray(0, roomInHead));
            if (roomInHead >= chunk.length)
                return;
            chunk = chunk.subarray(roomInHead);
        }
        this.tail.append(chunk);
    }
    result() {
        const truncated = this.totalBytes > this.limit;
        if (!truncated) {
            // Nothing was dropped: hand back all of it as one piece.
            const head = this.tail.length === 0 ? this.head.bytes() : Buffer.concat([this.head.bytes(), this.tail.bytes()]);
            return { head, tail: Buffer.alloc(0), totalBytes: this.totalBytes, truncated: false };
        }
        return { head: this.head.bytes(), tail: this.tail.bytes(), totalBytes: this.totalBytes, truncated: true };
    }
}

;// CONCATENATED MODULE: external "node:timers/promises"
const promises_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:timers/promises");
;// CONCATENATED MODULE: ./src/proc/tree.ts
// Finding and killing a whole process tree. A process-group kill is not enough: a descendant that
// called setsid() or setpgid() has left the group, and one whose parent died has been re-parented to
// init. So the tree is collected from the process table (ppid links, the group, the session and, when
// given, whoever holds the child's output pipes) and every member is signalled by pid as well.



const tree_POLL_MS = 50;
/** Rounds of "collect, SIGSTOP the new ones" before SIGKILL, so a fork loop cannot outrun the kill. */
const FREEZE_ROUNDS = 10;
/** Live descendants of `pid` (children, grandchildren…, found through their parent pid), nearest first. */
function listDescendants(pid) {
    const table = readProcessTable();
    const children = childrenByParent(table);
    const found = [];
    const queue = [pid];
    const seen = new Set(queue);
    while (queue.length > 0) {
        for (const child of children.get(queue.shift()) ?? []) {
            if (seen.has(child.pid))
                continue;
            seen.add(child.pid);
            if (!child.zombie)
                found.push(child.pid);
            queue.push(child.pid);
        }
    }
    return found;
}
/**
 * SIGTERM to the process group of `pid` and to every process of its tree; once they are all gone, or
 * after `graceMs`, the tree is collected again, frozen with SIGSTOP and SIGKILLed. Resolves when the
 * SIGKILLs are sent (or as soon as nothing is left alive). Never throws; never touches this process,
 * its ancestors or its own group.
 */
async function killProcessTree(pid, graceMs, options = {}) {
    if (!Number.isInteger(pid) || pid <= 1)
        return;
    const first = readProcessTable();
    const start = options.start ?? first.get(pid)?.start;
    const signal = options.signaller ?? signalOwn;
    const tree = new TreeCollector(pid, start, options.holding ?? [], signal);
    if (tree.isProtected(first))
        return;
    let targets = tree.collect(first, new Map(), true);
    // One SIGTERM each: a member of the group already has it, and a second would run its clean-up twice.
    const grouped = tree.signalGroup(first, 'SIGTERM');
    signal([...targets.keys()].filter(p => !grouped || first.get(p)?.pgrp !== pid), 'SIGTERM');
    const deadline = Date.now() + Math.max(0, graceMs);
    while (Date.now() < deadline) {
        await (0,promises_namespaceObject.setTimeout)(Math.min(tree_POLL_MS, Math.max(1, deadline - Date.now())));
        targets = tree.collect(readProcessTable(), targets, false);
        if (targets.size === 0)
            return;
    }
    // Stop everything first so nothing can fork between our last look and the SIGKILL.
    const stopped = new Map();
    for (let round = 0; round < FREEZE_ROUNDS; round++) {
        targets = tree.collect(readProcessTable(), new Map([...targets, ...stopped]), true);
        const fresh = [...targets.keys()].filter(p => !stopped.has(p));
        if (fresh.length === 0)
            break;
        signal(fresh, 'SIGSTOP');
        for (const target of fresh)
            stopped.set(target, targets.get(target));
    }
    tree.signalGroup(readProcessTable(), 'SIGKILL');
    signal([...new Set([...stopped.keys(), ...targets.keys()])], 'SIGKILL');
}
/**
 * Kills every process (with its tree) that was started with `name=value` in its environment: what the agent
 * left running after it exited, re-parented out of its tree (setsid, a double fork). Answers their pids.
 * Linux only (it reads /proc/<pid>/environ); a process that cleared its environment is not found.
 */
async function killMarked(name, value, graceMs) {
    if (process.platform !== 'linux')
        return [];
    const entry = Buffer.from(`${name}=${value}\0`);
    const table = readProcessTable();
    const skip = protectedPids(table);
    const marked = [];
    for (const pid of table.keys()) {
        if (skip.has(pid) || table.get(pid)?.zombie)
            continue;
        let environ;
        try {
            environ = readFileSync(`/proc/${pid}/environ`);
        }
        catch {
            continue; // gone, or not ours
        }
        const at = environ.indexOf(entry);
        if (at === 0 || (at > 0 && environ[at - 1] === 0))
            marked.push(pid);
    }
    await Promise.all(marked.map(pid => killProcessTree(pid, graceMs, { start: table.get(pid)?.start })));
    return marked;
}
/** The start time of a live process, to recognise it later (undefined when it is gone or unknown). */
function processIdentity(pid) {
    return readProcessTable(pid).get(pid)?.start;
}
/** Ids of the files open on the given descriptors of a process (`socket:[123]`); empty without /proc. */
function openFileIds(pid, fds) {
    const ids = [];
    for (const fd of fds) {
        try {
            const id = (0,external_node_fs_namespaceObject.readlinkSync)(`/proc/${pid}/fd/${fd}`);
            // Only an anonymous pipe or socket identifies our output; a file such as /dev/null is open everywhere.
            if (/^(pipe|socket):\[\d+\]$/.test(id))
                ids.push(id);
        }
        catch {
            // Gone already, or no /proc (macOS): the group and the ppid walk still apply.
        }
    }
    return ids;
}
class TreeCollector {
    root;
    rootStart;
    holding;
    signal;
    constructor(root, rootStart, holding, signal) {
        this.root = root;
        this.rootStart = rootStart;
        this.holding = holding;
        this.signal = signal;
    }
    /** Refuse to kill ourselves, an ancestor of ours, or a group/session we belong to. */
    isProtected(table) {
        const self = table.get(process.pid);
        return (protectedPids(table).has(this.root) ||
            (self !== undefined && (self.pgrp === this.root || self.sid === this.root)));
    }
    /** The pid was reused by an unrelated process since we learned its start time. */
    rootReused(table) {
        const entry = table.get(this.root);
        return entry !== undefined && this.rootStart !== undefined && entry.start !== this.rootStart;
    }
    /** Signals the root's process group; answers whether it did. */
    signalGroup(table, sig) {
        if (this.rootReused(table) || this.isProtected(table))
            return false;
        this.signal([-this.root], sig);
        return true;
    }
    /** Live members of the tree: the root, its group and session, known members and holders, and all their descendants. */
    collect(table, known, scanHolders) {
        const keep = protectedPids(table);
        const seeds = [];
        const root = table.get(this.root);
        const reused = this.rootReused(table);
        if (root && !reused)
            seeds.push(root);
        for (const entry of table.values()) {
            if (!reused && (entry.pgrp === this.root || entry.sid === this.root))
                seeds.push(entry);
            else if (known.get(entry.pid) === entry.start)
                seeds.push(entry);
        }
        if (scanHolders && this.holding.length > 0 && this.rootStart) {
            // Only processes started after the root can have inherited its pipes from it.
            const bornAfterRoot = (e) => Number(e.start) >= Number(this.rootStart);
            for (const pid of holdersOf(table, this.holding, keep)) {
                const entry = table.get(pid);
                if (bornAfterRoot(entry))
                    seeds.push(entry);
            }
        }
        const children = childrenByParent(table);
        const found = new Map();
        const seen = new Set();
        const queue = [];
        for (const seed of seeds) {
            if (keep.has(seed.pid) || seen.has(seed.pid))
                continue;
            seen.add(seed.pid);
            queue.push(seed);
        }
        while (queue.length > 0) {
            const entry = queue.shift();
            if (!entry.zombie)
                found.set(entry.pid, entry.start);
            for (const child of children.get(entry.pid) ?? []) {
                if (seen.has(child.pid) || keep.has(child.pid))
                    continue;
                seen.add(child.pid);
                queue.push(child);
            }
        }
        return found;
    }
}
/** The default signaller: process.kill. */
const signalOwn = (pids, sig) => {
    for (const pid of pids) {
        try {
            process.kill(pid, sig);
        }
        catch {
            // ESRCH: already gone. EPERM: not ours to kill.
        }
    }
};
/** This process, its ancestors, and pids 0 and 1. */
function protectedPids(table) {
    const pids = new Set([0, 1, process.pid]);
    for (let p = table.get(process.pid)?.ppid; p !== undefined && !pids.has(p); p = table.get(p)?.ppid)
        pids.add(p);
    return pids;
}
function childrenByParent(table) {
    const children = new Map();
    for (const entry of table.values()) {
        const list = children.get(entry.ppid);
        if (list)
            list.push(entry);
        else
            children.set(entry.ppid, [entry]);
    }
    return children;
}
/** Processes with one of `ids` open (a grandchild that escaped the group and outlived its parent). */
function holdersOf(table, ids, skip) {
    const wanted = new Set(ids);
    const holders = [];
    for (const entry of table.values()) {
        if (entry.zombie || skip.has(entry.pid))
            continue;
        let fds;
        try {
            fds = (0,external_node_fs_namespaceObject.readdirSync)(`/proc/${entry.pid}/fd`);
        }
        catch {
            continue;
        }
        for (const fd of fds) {
            try {
                if (wanted.has((0,external_node_fs_namespaceObject.readlinkSync)(`/proc/${entry.pid}/fd/${fd}`))) {
                    holders.push(entry.pid);
                    break;
                }
            }
            catch {
                // The descriptor closed while we looked.
            }
        }
    }
    return holders;
}
/** The process table: /proc on Linux, `ps` elsewhere, empty when neither works. */
function readProcessTable(onlyPid) {
    const table = new Map();
    if (process.platform === 'linux') {
        let names;
        try {
            names = onlyPid === undefined ? (0,external_node_fs_namespaceObject.readdirSync)('/proc') : [String(onlyPid)];
        }
        catch {
            return table;
        }
        for (const name of names) {
            if (!/^\d+$/.test(name))
                continue;
            try {
                const entry = parseStat(readStat(name));
                if (entry)
                    table.set(entry.pid, entry);
            }
            catch {
                // Exited while we read the table.
            }
        }
        return table;
    }
    try {
        const out = (0,external_node_child_process_namespaceObject.execFileSync)('ps', ['-A', '-o', 'pid=,ppid=,pgid=,state='], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
            timeout: 5000
        });
        for (const line of out.split('\n')) {
            const [pid, ppid, pgrp, state] = line.trim().split(/\s+/);
            if (!pid || !state)
                continue;
            table.set(Number(pid), {
                pid: Number(pid),
                ppid: Number(ppid),
                pgrp: Number(pgrp),
                sid: -1,
                zombie: state.startsWith('Z'),
                start: ''
            });
        }
    }
    catch {
        // No ps: only the group kill and the direct pid remain.
    }
    return table;
}
/** Reused by readStat: a stat line is a few hundred bytes. */
const statBuffer = Buffer.alloc(4096);
/**
 * `/proc/<pid>/stat` in one read: readFileSync, which cannot trust the size /proc reports (0), costs three
 * times as much, and this runs for every process started and for every process on the machine during a kill.
 */
function readStat(pid) {
    const fd = (0,external_node_fs_namespaceObject.openSync)(`/proc/${pid}/stat`, 'r');
    try {
        const length = (0,external_node_fs_namespaceObject.readSync)(fd, statBuffer, 0, statBuffer.length, null);
        if (length < statBuffer.length)
            return statBuffer.toString('latin1', 0, length);
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
    return (0,external_node_fs_namespaceObject.readFileSync)(`/proc/${pid}/stat`, 'latin1');
}
/** `pid (comm) state ppid pgrp session … starttime(22) …`; comm may hold spaces and parentheses. */
function parseStat(stat) {
    const close = stat.lastIndexOf(')');
    if (close < 0)
        return undefined;
    const fields = stat.slice(close + 2).split(' ');
    // fields[0] is field 3 (state), so field n is fields[n - 3].
    if (fields.length < 20)
        return undefined;
    return {
        pid: Number(stat.slice(0, stat.indexOf(' '))),
        ppid: Number(fields[1]),
        pgrp: Number(fields[2]),
        sid: Number(fields[3]),
        zombie: fields[0] === 'Z' || fields[0] === 'X',
        start: fields[19]
    };
}

;// CONCATENATED MODULE: ./src/proc/run.ts






const DEFAULT_CAPTURE_LIMIT = 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 3000;
/** After the SIGKILL round, output that stays silent this long is not waited for any more… */
const PIPE_IDLE_MS = 200;
/** …nor, at most, longer than this (something we could not find may keep a pipe open and writing). */
const PIPE_MAX_WAIT_MS = 2000;
/** The log's write buffer: past it the child's output is paused until the file catches up. */
const LOG_HIGH_WATER_MARK = 1024 * 1024;
/**
 * Runs one program (never through a shell) in its own process group, with bounded capture of stdout
 * and stderr, every byte streamed to `logFile`, and the whole process tree killed on timeout or abort.
 * Resolves once the program has exited and its output pipes are closed. A program that cannot start
 * resolves with `spawnError`; the promise rejects only when an onStdout/onStderr callback throws
 * (the tree is killed first).
 */
function runProcess(opts) {
    return new Promise((resolve, reject) => new ProcessRun(opts, resolve, reject).start());
}
class ProcessRun {
    opts;
    resolve;
    reject;
    startedAt = external_node_perf_hooks_namespaceObject.performance.now();
    captures;
    child;
    identity;
    outputIds = [];
    exit;
    openStreams = 0;
    timedOut = false;
    aborted = false;
    spawnError;
    callbackError;
    /** The program has exited and its pipes are closed: timeouts and aborts no longer apply. */
    settled = false;
    finished = false;
    killing;
    log;
    logClosed;
    logError;
    /** The log file is behind (its buffer is past LOG_HIGH_WATER_MARK). */
    logBehind = false;
    /** outputRoom's promises not settled yet: the caller cannot take more. */
    callerWaits = 0;
    /** The tree is dead: what is left in the pipes is read whatever the caller says. */
    callerIgnored = false;
    readingPaused = false;
    timeoutTimer;
    pipeIdleTimer;
    pipeMaxTimer;
    onAbort = () => {
        if (this.settled)
            return;
        this.aborted = true;
        const reason = this.opts.signal?.reason;
        const grace = reason?.killGraceMs;
        this.killTree(typeof grace === 'number' ? grace : undefined);
    };
    constructor(opts, resolve, reject) {
        this.opts = opts;
        this.resolve = resolve;
        this.reject = reject;
        const limit = Math.max(0, opts.captureLimit ?? DEFAULT_CAPTURE_LIMIT);
        this.captures = { stdout: new BoundedCapture(limit), stderr: new BoundedCapture(limit) };
    }
    start() {
        const { argv, cwd, input, signal, timeoutMs } = this.opts;
        if (signal?.aborted) {
            // Nothing is started for a run that is already cancelled.
            this.aborted = true;
            void this.finish();
            return;
        }
        if (argv.length === 0 || argv[0] === '') {
            this.spawnError = Object.assign(new Error('spawn: empty command'), { code: 'EINVAL' });
            void this.finish();
            return;
        }
        this.openLog();
        let child;
        try {
            child = (0,external_node_child_process_namespaceObject.spawn)(argv[0], argv.slice(1), {
                cwd,
                env: this.opts.extraEnv
                    ? { ...(this.opts.env ?? process.env), ...this.opts.extraEnv }
                    : (this.opts.env ?? process.env),
                // Own process group (and session), like Python's start_new_session: the whole tree can be signalled.
                detached: true,
                stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']
            });
        }
        catch (err) {
            // Some errors (ENOTDIR, a NUL byte in an argument) are thrown instead of emitted.
            this.spawnError = this.explain(err);
            void this.finish();
            return;
        }
        this.child = child;
        if (child.pid !== undefined) {
            // Read at once: a program may exit within a millisecond, leaving a grandchild with its pipes.
            this.outputIds = openFileIds(child.pid, [1, 2]);
            this.identity = processIdentity(child.pid);
        }
        // ENOENT/EACCES arrive here, on the next tick; the pipes Node opened close by themselves.
        child.on('error', err => {
            if (child.pid !== undefined || this.spawnError)
                return;
            this.spawnError = this.explain(err);
            this.exit = { code: null, signal: null };
            this.settleIfDone();
        });
        child.on('exit', (code, sig) => {
            this.exit = { code, signal: sig };
            this.callBack(this.opts.onExit, undefined);
            this.settleIfDone();
        });
        this.watchOutput(child.stdout, 'stdout');
        this.watchOutput(child.stderr, 'stderr');
        if (child.stdin) {
            // A program that exits without reading its input is not an error (EPIPE).
            child.stdin.on('error', () => { });
            child.stdin.end(input);
        }
        if (child.pid === undefined)
            return;
        if (timeoutMs !== undefined) {
            this.timeoutTimer = setTimeout(() => {
                if (this.settled)
                    return;
                this.timedOut = true;
                this.killTree();
            }, Math.max(0, timeoutMs));
        }
        signal?.addEventListener('abort', this.onAbort, { once: true });
        this.callBack(this.opts.onSpawn, child.pid);
    }
    /** A caller's callback that throws ends the run: the tree is killed and the run rejects with the error. */
    callBack(callback, arg) {
        if (!callback || this.callbackError !== undefined)
            return;
        try {
            callback(arg);
        }
        catch (err) {
            this.callbackError = err;
            this.killTree();
        }
    }
    /** The caller has no room for more output: stop reading until it has (the program blocks in write). */
    waitForCaller() {
        if (this.callerIgnored || !this.opts.outputRoom)
            return;
        let wait;
        try {
            wait = this.opts.outputRoom();
        }
        catch {
            // A front-end that cannot say is not waited for.
        }
        if (!wait)
            return;
        this.callerWaits++;
        this.updateReading();
        const settled = () => {
            this.callerWaits--;
            this.updateReading();
        };
        wait.then(settled, settled);
    }
    openLog() {
        const { logFile } = this.opts;
        if (logFile === undefined)
            return;
        try {
            (0,external_node_fs_namespaceObject.mkdirSync)((0,external_node_path_namespaceObject.dirname)(logFile), { recursive: true });
        }
        catch {
            // createWriteStream reports the real problem below.
        }
        const log = (0,external_node_fs_namespaceObject.createWriteStream)(logFile, { flags: 'a', highWaterMark: LOG_HIGH_WATER_MARK });
        this.log = log;
        this.logClosed = new Promise(resolve => log.once('close', resolve));
        log.on('error', err => {
            // A log we cannot write must not stop or stall the program: stop logging and say so in the result.
            this.logError ??= err;
            this.logBehind = false;
            this.updateReading();
        });
    }
    watchOutput(stream, name) {
        this.openStreams++;
        const callback = name === 'stdout' ? this.opts.onStdout : this.opts.onStderr;
        stream.on('data', (chunk) => {
            this.captures[name].push(chunk);
            if (this.log && !this.logError && !this.log.write(chunk))
                this.waitForLog();
            this.callBack(callback, chunk);
            this.waitForCaller();
            if (this.pipeIdleTimer)
                this.pipeIdleTimer.refresh();
        });
        stream.on('error', () => {
            // Reads fail only when the pipe is torn down; 'close' follows.
        });
        stream.on('close', () => {
            this.openStreams--;
            this.settleIfDone();
        });
    }
    /** The log file is behind: stop reading the child (it blocks on a full pipe) until the file drains. */
    waitForLog() {
        if (this.logBehind || !this.log)
            return;
        this.logBehind = true;
        this.updateReading();
        this.log.once('drain', () => {
            this.logBehind = false;
            this.updateReading();
        });
    }
    /** Reads the pipes only while the log file and the caller can both take more. */
    updateReading() {
        const pause = this.logBehind || (this.callerWaits > 0 && !this.callerIgnored);
        if (pause === this.readingPaused)
            return;
        this.readingPaused = pause;
        for (const stream of [this.child?.stdout, this.child?.stderr]) {
            if (pause)
                stream?.pause();
            else
                stream?.resume();
        }
    }
    killTree(graceMs) {
        const pid = this.child?.pid;
        if (this.killing || pid === undefined)
            return;
        const grace = Math.max(0, graceMs ?? this.opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
        this.killing = killProcessTree(pid, grace, {
            start: this.identity,
            holding: this.outputIds,
            ...(this.opts.signaller ? { signaller: this.opts.signaller } : {})
        }).then(() => {
            // A reader that never reads again must not keep a dead tree's output, nor the run, waiting.
            this.callerIgnored = true;
            this.updateReading();
            this.stopWaitingForPipes();
        });
        void this.killing.then(() => this.settleIfDone());
    }
    /**
     * Everything we could find is dead, but an escaped process we could not find may still hold a pipe
     * open: once the output goes quiet (or at the latest after PIPE_MAX_WAIT_MS), stop waiting for EOF.
     */
    stopWaitingForPipes() {
        if (this.openStreams === 0)
            return;
        const destroy = () => {
            if (this.logBehind) {
                // Output is only waiting for the log file to drain; give it another moment.
                this.pipeIdleTimer?.refresh();
                return;
            }
            this.child?.stdout?.destroy();
            this.child?.stderr?.destroy();
        };
        this.pipeIdleTimer = setTimeout(destroy, PIPE_IDLE_MS);
        this.pipeMaxTimer = setTimeout(() => {
            this.logBehind = false;
            this.updateReading();
            this.child?.stdout?.destroy();
            this.child?.stderr?.destroy();
        }, PIPE_MAX_WAIT_MS);
    }
    settleIfDone() {
        if (this.settled || this.exit === undefined || this.openStreams > 0)
            return;
        this.settled = true;
        clearTimeout(this.timeoutTimer);
        clearTimeout(this.pipeIdleTimer);
        clearTimeout(this.pipeMaxTimer);
        // A kill in progress (its grace period) ends before we report: nothing of the tree is left behind.
        void (this.killing ?? Promise.resolve()).then(() => this.finish());
    }
    async finish() {
        if (this.finished)
            return;
        this.finished = true;
        clearTimeout(this.timeoutTimer);
        clearTimeout(this.pipeIdleTimer);
        clearTimeout(this.pipeMaxTimer);
        this.opts.signal?.removeEventListener('abort', this.onAbort);
        // A grandchild may still hold stdin without reading it; our end is of no further use.
        this.child?.stdin?.destroy();
        if (this.log) {
            this.log.end();
            await this.logClosed;
        }
        if (this.callbackError !== undefined) {
            this.reject(this.callbackError);
            return;
        }
        const result = {
            exitCode: this.exit?.code ?? null,
            signal: this.exit?.signal ?? null,
            timedOut: this.timedOut,
            aborted: this.aborted,
            stdout: this.captures.stdout.result(),
            stderr: this.captures.stderr.result(),
            durationMs: external_node_perf_hooks_namespaceObject.performance.now() - this.startedAt
        };
        if (this.spawnError)
            result.spawnError = this.spawnError;
        if (this.logError)
            result.logError = this.logError;
        this.resolve(result);
    }
    /** Node reports a missing working directory as the program being missing; say which one it is. */
    explain(err) {
        if (err.code === 'ENOENT' && !(0,external_node_fs_namespaceObject.existsSync)(this.opts.cwd)) {
            err.message = `spawn ${this.opts.argv[0]} ENOENT: the working directory ${this.opts.cwd} does not exist`;
            err.path = this.opts.cwd;
        }
        return err;
    }
}

;// CONCATENATED MODULE: ./src/proc/text.ts
const defaultTruncationMarker = (droppedBytes) => `\n[... ${droppedBytes} bytes omitted ...]\n`;
/**
 * Decodes a capture as UTF-8 with replacement, like Python's `bytes.decode('utf-8', 'replace')`.
 * Node's decoder replaces exactly the same maximal invalid subparts as Python (checked against
 * CPython 3.11 for stray bytes, truncated sequences, overlongs, surrogates, > U+10FFFF) and, unlike
 * `TextDecoder`'s default, keeps a leading BOM as Python's 'utf-8' codec does.
 * A character split by the head/tail cut is dropped rather than shown as replacement characters;
 * the bytes it loses are counted in the marker.
 */
function decodeCaptured(c, opts = {}) {
    const text = (bytes) => {
        const s = bytes.toString('utf8');
        return opts.translateNewlines ? translateNewlines(s) : s;
    };
    if (!c.truncated)
        return text(c.tail.length === 0 ? c.head : Buffer.concat([c.head, c.tail]));
    const head = c.head.subarray(0, c.head.length - cutCharacterAtEnd(c.head));
    const tail = c.tail.subarray(cutCharacterAtStart(c.tail));
    const dropped = c.totalBytes - head.length - tail.length;
    return text(head) + (opts.truncationMarker ?? defaultTruncationMarker)(dropped) + text(tail);
}
/** What Python's text mode does to subprocess output (`subprocess.run(..., text=True)`). */
function translateNewlines(s) {
    return s.replace(/\r\n?/g, '\n');
}
/**
 * The reference runtime's rule for one command's text: stdout then stderr, with a "\n" between them
 * only when both are non-empty and stdout does not already end with one. Nothing is trimmed.
 */
function combineOutput(stdout, stderr) {
    if (stdout === '')
        return stderr;
    if (stderr === '')
        return stdout;
    return stdout.endsWith('\n') ? stdout + stderr : `${stdout}\n${stderr}`;
}
const isContinuation = (b) => b >= 0x80 && b <= 0xbf;
/** Length of a UTF-8 sequence started by `lead`, or 0 when `lead` cannot start one. */
function sequenceLength(lead) {
    if (lead >= 0xc2 && lead <= 0xdf)
        return 2;
    if (lead >= 0xe0 && lead <= 0xef)
        return 3;
    if (lead >= 0xf0 && lead <= 0xf4)
        return 4;
    return 0;
}
/** The second byte is restricted for some leads (no overlongs, no surrogates, nothing above U+10FFFF). */
function validSecondByte(lead, b) {
    if (lead === 0xe0)
        return b >= 0xa0 && b <= 0xbf;
    if (lead === 0xed)
        return b >= 0x80 && b <= 0x9f;
    if (lead === 0xf0)
        return b >= 0x90 && b <= 0xbf;
    if (lead === 0xf4)
        return b >= 0x80 && b <= 0x8f;
    return isContinuation(b);
}
/**
 * Bytes at the end of `buf` that are the valid beginning of a character the cut split. An invalid
 * or complete ending returns 0, so it decodes exactly as Python would decode it.
 */
function cutCharacterAtEnd(buf) {
    for (let back = 1; back <= Math.min(3, buf.length); back++) {
        const lead = buf[buf.length - back];
        if (isContinuation(lead))
            continue;
        const need = sequenceLength(lead);
        if (need <= back)
            return 0;
        const rest = buf.subarray(buf.length - back + 1);
        if (rest.length > 0 && !validSecondByte(lead, rest[0]))
            return 0;
        return rest.every(isContinuation) ? back : 0;
    }
    return 0;
}
/** Continuation bytes at the start of the tail belong to a character whose beginning was dropped. */
function cutCharacterAtStart(buf) {
    let n = 0;
    while (n < 3 && n < buf.length && isContinuation(buf[n]))
        n++;
    return n;
}

;// CONCATENATED MODULE: ./src/proc/which.ts
// Python's shutil.which on POSIX, which the reference uses to check that the agent exists before the loop.


/** glibc's confstr(_CS_PATH): Python's fallback when PATH is unset. */
const DEFAULT_PATH = '/bin:/usr/bin';
/**
 * The file the command would run, or null. A name with a slash (`./agent.sh`, `bin/x`) is checked as is,
 * relative to `cwd`; otherwise each PATH entry is tried in order (an empty entry means `cwd`).
 * A match must exist, be executable and not be a directory. `path` is PATH as the environment has it:
 * undefined when unset, which means Python's default.
 */
function which(command, opts) {
    if (command.includes('/'))
        return isExecutableFile(command, opts.cwd) ? command : null;
    const searchPath = opts.path ?? DEFAULT_PATH;
    if (!searchPath)
        return null;
    const seen = new Set();
    for (const dir of searchPath.split(':')) {
        if (seen.has(dir))
            continue;
        seen.add(dir);
        const candidate = dir === '' ? command : dir.endsWith('/') ? dir + command : `${dir}/${command}`;
        if (isExecutableFile(candidate, opts.cwd))
            return candidate;
    }
    return null;
}
function isExecutableFile(file, cwd) {
    // Joined without normalising, so `..` after a symlink means what the OS says it means.
    const absolute = external_node_path_default().isAbsolute(file) ? file : `${cwd.replace(/\/+$/, '')}/${file}`;
    try {
        if (external_node_fs_default().statSync(absolute).isDirectory())
            return false;
        external_node_fs_default().accessSync(absolute, (external_node_fs_default()).constants.X_OK);
        return true;
    }
    catch {
        return false;
    }
}
/** The folders the system keeps its own programs in. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const resolved = new Map();
/**
 * A program the action itself runs (git, and as root prlimit, setpriv, sudo, bash), by absolute path, found
 * once, the first time (before the loop): `system` looks in SYSTEM_PATH alone, else the absolute folders of
 * PATH. A relative PATH entry, or a folder the agent fills later (a work tree's node_modules/.bin), never
 * chooses what the action runs.
 */
function trustedProgram(name, system = false) {
    // Per PATH (the action never changes its own; a test may put a stand-in first), found once for each.
    const key = `${system ? 's' : 'p'}:${name}:${system ? '' : (process.env.PATH ?? '')}`;
    let found = resolved.get(key);
    if (found === undefined) {
        const absolute = (process.env.PATH ?? '')
            .split(':')
            .filter(dir => external_node_path_default().isAbsolute(dir))
            .join(':');
        found = which(name, { cwd: '/', path: system ? SYSTEM_PATH : absolute || SYSTEM_PATH }) ?? name;
        resolved.set(key, found);
    }
    return found;
}

;// CONCATENATED MODULE: ./src/proc/index.ts
// Running one program: bounded capture, a log of every byte, and the whole tree killed on timeout or abort.







;// CONCATENATED MODULE: ./src/ralph/types.ts
// The RALPH.md contract: what a validated ralph is, what a problem with one looks like.
/** Thrown for bad input (a user's mistake, not our bug): the CLI prints `message` alone, no stack trace. */
class RalphError extends Error {
    exitCode;
    problems;
    constructor(message, exitCode = 1, problems = []) {
        super(message);
        this.exitCode = exitCode;
        this.problems = problems;
        this.name = 'RalphError';
    }
}
const FILE_PROBLEMS = {
    ENOENT: 'no such file or folder',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'it is a folder, not a file',
    ENOTDIR: 'a part of the path is a file, not a folder',
    EEXIST: 'it already exists',
    ENOSPC: 'the disk is full',
    EROFS: 'the file system is read-only'
};
/** A file system error in words ("no such file or folder"), not errno jargon ("ENOENT: …"). */
function fileProblem(error) {
    const code = error?.code;
    if (code !== undefined && FILE_PROBLEMS[code])
        return FILE_PROBLEMS[code];
    return error instanceof Error ? error.message : String(error);
}

;// CONCATENATED MODULE: ./src/ralph/comments.ts
// HTML comments in the body are notes for humans: the reference removes them before substitution, but keeps
// the ones inside ``` or ~~~ fences. Its fence detection is a regex, not CommonMark, and we copy the regex:
// an opening fence may start anywhere (even mid-line); the closing one must start a line (after spaces or
// tabs) and be at least as long as the opening one.
const FENCE_OR_COMMENT = /((`{3,}).*?\n[ \t]*\2`*|(~{3,}).*?\n[ \t]*\3~*)|<!--.*?-->/gs;
/** Removes `<!-- … -->` outside fenced blocks, exactly (no whitespace around it is touched). */
function stripHtmlComments(body) {
    return body.replace(FENCE_OR_COMMENT, (_match, fence) => fence ?? '');
}

// EXTERNAL MODULE: ./node_modules/yaml/dist/index.js
var dist = __nccwpck_require__(8815);
;// CONCATENATED MODULE: ./src/ralph/pystr.ts
// Python's notion of whitespace, which the reference runtime uses in str.strip() and in `\s` of its regexes.
// It differs from JavaScript's: Python counts \x1c-\x1f and \x85 as whitespace, JavaScript counts \ufeff.
/** The characters for which Python's `str.isspace()` is true (identical to `\s` in a Python str regex). */
const PY_WHITESPACE = '\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';
/** Python's `\s` as the body of a JavaScript character class, for building regexes. */
const PY_WS_CLASS = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WHITESPACE_CODES = new Set(Array.from(PY_WHITESPACE, c => c.charCodeAt(0)));
/** Python's `c.isspace()` for one UTF-16 code unit (no whitespace lies outside the BMP). */
function isPySpace(code) {
    return WHITESPACE_CODES.has(code);
}
/** Python's `s.strip()`. */
function pyStrip(s) {
    return pyRstrip(pyLstrip(s));
}
/** Python's `s.lstrip()`. */
function pyLstrip(s) {
    let start = 0;
    while (start < s.length && isPySpace(s.charCodeAt(start)))
        start++;
    return s.slice(start);
}
/** Python's `s.rstrip()`. */
function pyRstrip(s) {
    let end = s.length;
    while (end > 0 && isPySpace(s.charCodeAt(end - 1)))
        end--;
    return s.slice(0, end);
}

;// CONCATENATED MODULE: ./src/ralph/pyvalue.ts
// What PyYAML's safe_load gives the reference runtime, modelled closely enough to reproduce its messages:
// the Python type of a value (`got list`) and its repr (`got 'false'`, `invalid timeout: 1.5`).
/** A Python value with no JavaScript counterpart (date, datetime, bytes, set, tuple): its type name and repr. */
class PyOpaque {
    typeName;
    repr;
    constructor(typeName, repr) {
        this.typeName = typeName;
        this.repr = repr;
    }
}
/** Python's `type(v).__name__`. */
function pyTypeName(v) {
    if (v === null)
        return 'NoneType';
    switch (typeof v) {
        case 'boolean':
            return 'bool';
        case 'bigint':
            return 'int';
        case 'number':
            return 'float';
        case 'string':
            return 'str';
    }
    if (Array.isArray(v))
        return 'list';
    if (v instanceof Map)
        return 'dict';
    return v.typeName;
}
/** Python's `repr(v)`. */
function pyRepr(v) {
    return reprIn(v, new Set());
}
function reprIn(v, open) {
    if (v === null)
        return 'None';
    switch (typeof v) {
        case 'boolean':
            return v ? 'True' : 'False';
        case 'bigint':
            return v.toString();
        case 'number':
            return pyFloatRepr(v);
        case 'string':
            return pyStrRepr(v);
    }
    if (v instanceof PyOpaque)
        return v.repr;
    // A YAML alias can make a structure contain itself; Python prints the inner reference as [...] / {...}.
    if (open.has(v))
        return Array.isArray(v) ? '[...]' : '{...}';
    open.add(v);
    try {
        if (Array.isArray(v))
            return `[${v.map(item => reprIn(item, open)).join(', ')}]`;
        const entries = [...v].map(([key, value]) => `${reprIn(key, open)}: ${reprIn(value, open)}`);
        return `{${entries.join(', ')}}`;
    }
    finally {
        open.delete(v);
    }
}
// Python's str.isprintable() is false for these categories (the space character excepted).
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
/** Python's `repr(s)` for a str. */
function pyStrRepr(s) {
    const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
    let out = quote;
    for (const ch of s) {
        const code = ch.codePointAt(0);
        if (ch === quote || ch === '\\')
            out += '\\' + ch;
        else if (ch === '\t')
            out += '\\t';
        else if (ch === '\n')
            out += '\\n';
        else if (ch === '\r')
            out += '\\r';
        else if (code < 0x20 || code === 0x7f)
            out += '\\x' + hex(code, 2);
        else if (code < 0x7f)
            out += ch;
        else if (!NOT_PRINTABLE.test(ch))
            out += ch;
        else if (code <= 0xff)
            out += '\\x' + hex(code, 2);
        else if (code <= 0xffff)
            out += '\\u' + hex(code, 4);
        else
            out += '\\U' + hex(code, 8);
    }
    return out + quote;
}
/** Python's `repr(b)` for bytes. */
function pyBytesRepr(bytes) {
    const hasSingle = bytes.includes(0x27);
    const quote = hasSingle && !bytes.includes(0x22) ? '"' : "'";
    let out = 'b' + quote;
    for (const b of bytes) {
        const ch = String.fromCharCode(b);
        if (ch === quote || ch === '\\')
            out += '\\' + ch;
        else if (ch === '\t')
            out += '\\t';
        else if (ch === '\n')
            out += '\\n';
        else if (ch === '\r')
            out += '\\r';
        else if (b < 0x20 || b >= 0x7f)
            out += '\\x' + hex(b, 2);
        else
            out += ch;
    }
    return out + quote;
}
function hex(n, width) {
    return n.toString(16).padStart(width, '0');
}
/** Python's `repr(x)` for a float: the shortest digits that round-trip, `1e+16`, `1e-05`, `inf`, `nan`. */
function pyFloatRepr(x) {
    if (Number.isNaN(x))
        return 'nan';
    if (x === Infinity)
        return 'inf';
    if (x === -Infinity)
        return '-inf';
    if (x === 0)
        return Object.is(x, -0) ? '-0.0' : '0.0';
    const sign = x < 0 ? '-' : '';
    // toExponential() without an argument gives the shortest round-trip digits, like Python's repr.
    const [mantissa, exponent] = Math.abs(x).toExponential().split('e');
    const digits = mantissa.replace('.', '');
    const decpt = Number(exponent) + 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0)
            return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
        if (decpt >= digits.length)
            return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
        return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
    }
    const exp = decpt - 1;
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const expText = String(Math.abs(exp)).padStart(2, '0');
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${expText}`;
}
/**
 * Python's `'%.1f' % x`: the exact binary value correctly rounded, an exact tie going to the even digit
 * (`0.25` → `0.2`). JavaScript's toFixed sends ties up, and switches to exponent notation from 1e21.
 */
function pyFormatFixed1(x) {
    if (Number.isNaN(x))
        return 'nan';
    if (!Number.isFinite(x))
        return x > 0 ? 'inf' : '-inf';
    const sign = x < 0 || Object.is(x, -0) ? '-' : '';
    const a = Math.abs(x);
    if (a >= 1e21)
        return `${sign}${BigInt(a).toString()}.0`;
    const quarters = a * 4;
    // Only n + 0.25 and n + 0.75 are exact ties at one decimal: a*4 is then an odd integer.
    if (Number.isInteger(quarters) && quarters % 2 === 1) {
        const five = BigInt(quarters) * 5n; // tenths * 2, odd
        let tenths = (five - 1n) / 2n;
        if (tenths % 2n === 1n)
            tenths += 1n;
        return `${sign}${tenths / 10n}.${tenths % 10n}`;
    }
    return `${sign}${a.toFixed(1)}`;
}

;// CONCATENATED MODULE: ./src/ralph/frontmatter.ts
// Splitting RALPH.md into frontmatter and body, and reading the frontmatter the way the reference does:
// PyYAML's safe_load, i.e. YAML 1.1 (`credit: no` is false, `010` is 8, `1e3` is a string).
//
// The `yaml` package parses (it reports positions), with the failsafe schema so that every scalar reaches
// us as text; the PyYAML resolution rules and constructors below turn the nodes into Python values.




const DELIMITER = '---';
const BOM = '\ufeff';
/** Python's universal newlines (`read_text`): CRLF and lone CR become LF. */
function normalizeNewlines(text) {
    return text.replace(/\r\n?/g, '\n');
}
/**
 * Splits the file text into frontmatter and body. Newlines are normalised and one leading BOM is dropped first.
 * The first line opens the block when it is `---` (trailing whitespace allowed); the next such line closes it.
 * An indented `---` does not count. Without a closing line the whole file is body.
 */
function splitFrontmatter(text) {
    let normalized = normalizeNewlines(text);
    if (normalized.startsWith(BOM))
        normalized = normalized.slice(BOM.length);
    const lines = normalized.split('\n');
    const noFrontmatter = { yaml: null, yamlStartLine: 0, body: normalized, bodyStartLine: 1 };
    if (pyRstrip(lines[0]) !== DELIMITER)
        return noFrontmatter;
    for (let i = 1; i < lines.length; i++) {
        if (pyRstrip(lines[i]) === DELIMITER) {
            return {
                yaml: lines.slice(1, i).join('\n'),
                yamlStartLine: 2,
                body: lines.slice(i + 1).join('\n'),
                bodyStartLine: i + 2
            };
        }
    }
    return noFrontmatter;
}
/** Where the values of a parsed frontmatter came from, for messages that point at a line. */
class FrontmatterPositions {
    nodes = new WeakMap();
    entries = new WeakMap();
    items = new WeakMap();
    /** The position of a list or mapping. */
    of(value) {
        return typeof value === 'object' && value !== null ? this.nodes.get(value) : undefined;
    }
    /** The position of a mapping's key, and of its value. */
    entry(dict, key) {
        return this.entries.get(dict)?.get(key) ?? {};
    }
    /** The position of a list's item. */
    item(list, index) {
        return this.items.get(list)?.[index];
    }
    /** @internal */
    recordNode(value, pos) {
        if (pos)
            this.nodes.set(value, pos);
    }
    /** @internal */
    recordEntry(dict, key, pos) {
        let map = this.entries.get(dict);
        if (!map)
            this.entries.set(dict, (map = new Map()));
        map.set(key, pos);
    }
    /** @internal */
    recordItems(list, positions) {
        this.items.set(list, positions);
    }
}
/**
 * Parses RALPH.md text and returns its frontmatter mapping (an empty Map when there is none).
 * Throws RalphError: `FILE:LINE:COLUMN: Invalid YAML in frontmatter: <reason>` (the reference prints a
 * traceback instead: a deliberate difference), or the reference's `Frontmatter must be a YAML mapping, got list`.
 */
function parseFrontmatter(file, text) {
    return readFrontmatter(file, text).data;
}
/** parseFrontmatter with the positions of every value, for validation messages. */
function readFrontmatter(file, text) {
    const split = splitFrontmatter(text);
    const positions = new FrontmatterPositions();
    // The reference only parses a non-empty block: `---\n---` is an empty mapping.
    if (!split.yaml)
        return { data: new Map(), positions, split };
    const lineCounter = new dist/* LineCounter */.HN();
    const doc = (0,dist/* parseDocument */.Tp)(split.yaml, {
        version: '1.1',
        schema: 'failsafe',
        merge: false,
        uniqueKeys: false,
        resolveKnownTags: false,
        prettyErrors: false,
        lineCounter
    });
    const toPos = (offset) => {
        const { line, col } = lineCounter.linePos(offset);
        return { line: line + split.yamlStartLine - 1, column: col };
    };
    const fail = (offset, reason) => {
        const pos = toPos(offset);
        const message = `Invalid YAML in frontmatter: ${reason}`;
        const problem = { file, line: pos.line, column: pos.column, message, exitCode: 1 };
        throw new RalphError(`${file}:${pos.line}:${pos.column}: ${message}`, 1, [problem]);
    };
    const error = doc.errors[0];
    if (error)
        fail(error.pos[0], yamlReason(error.code, error.message));
    checkAnchors(doc, fail);
    checkKeylessValues(split.yaml, fail);
    const data = new PyConstructor(split.yaml, doc, positions, toPos, fail).construct(doc.contents);
    if (data === null)
        return { data: new Map(), positions, split };
    if (!(data instanceof Map)) {
        const pos = doc.contents?.range ? toPos(doc.contents.range[0]) : undefined;
        const message = `Frontmatter must be a YAML mapping, got ${pyTypeName(data)}`;
        throw new RalphError(message, 1, [{ file, ...pos, message, exitCode: 1 }]);
    }
    return { data, positions, split };
}
// The yaml package's messages are sentences; keep the first line, without its own position suffix.
function yamlReason(code, message) {
    if (code === 'MULTIPLE_DOCS')
        return 'expected a single document, but found another one (a "..." line?)';
    const first = message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    return first.charAt(0).toLowerCase() + first.slice(1);
}
// PyYAML refuses an anchor defined twice; the yaml package lets the second one win.
function checkAnchors(doc, fail) {
    const seen = new Set();
    (0,dist/* visit */.YR)(doc, {
        Node(_key, node) {
            const anchor = node.anchor;
            if (!anchor)
                return;
            if (seen.has(anchor))
                fail(node.range?.[0] ?? 0, `found duplicate anchor ${pyStrRepr(anchor)}`);
            seen.add(anchor);
        }
    });
}
// PyYAML allows a `:` without a key before it only after an explicit `?`; the yaml package takes the key as
// empty, so that `a: [x, y]: z` would silently gain a None key.
function checkKeylessValues(yamlText, fail) {
    for (const token of new dist/* Parser */.iX().parse(yamlText)) {
        if (token.type !== 'document')
            continue;
        dist/* CST */.DB.visit(token, item => {
            if (item.key !== null || !item.sep)
                return;
            const explicit = 'explicitKey' in item || item.start.some(t => t.type === 'explicit-key-ind');
            const colon = item.sep.find(t => t.type === 'map-value-ind');
            if (!explicit && colon)
                fail(colon.offset, 'mapping values are not allowed here');
        });
    }
}
// PyYAML's implicit resolvers (resolver.py), tried in this order for plain scalars only.
const IMPLICIT = [
    ['bool', /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/],
    [
        'float',
        /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/
    ],
    [
        'int',
        /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/
    ],
    ['merge', /^(?:<<)$/],
    ['null', /^(?:~|null|Null|NULL|)$/],
    [
        'timestamp',
        /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/
    ],
    ['value', /^(?:=)$/]
];
const YAML_TAG = 'tag:yaml.org,2002:';
/** PyYAML's SafeConstructor over the yaml package's nodes. */
class PyConstructor {
    source;
    doc;
    positions;
    toPos;
    fail;
    built = new Map();
    constructor(source, doc, positions, toPos, fail) {
        this.source = source;
        this.doc = doc;
        this.positions = positions;
        this.toPos = toPos;
        this.fail = fail;
    }
    construct(node) {
        if (node === null || node === undefined)
            return null;
        if ((0,dist/* isAlias */.Vj)(node)) {
            const target = node.resolve(this.doc);
            if (!target)
                return this.fail(node.range?.[0] ?? 0, `found undefined alias ${node.source}`);
            return this.construct(target);
        }
        const yamlNode = node;
        if (this.built.has(yamlNode))
            return this.built.get(yamlNode);
        const start = yamlNode.range?.[0] ?? 0;
        if ((0,dist/* isScalar */.jn)(node)) {
            const value = this.scalar(node, this.tagOf(node), start);
            this.built.set(yamlNode, value);
            return value;
        }
        if ((0,dist/* isMap */.jh)(node))
            return this.mapping(node, start);
        if ((0,dist/* isSeq */.oP)(node))
            return this.sequence(node, start);
        return this.fail(start, 'unsupported YAML node');
    }
    /** The node's tag as PyYAML resolves it: the explicit one, or the implicit one for plain scalars. */
    tagOf(node) {
        const explicit = node.tag;
        if (explicit && explicit !== '!')
            return explicit;
        if ((0,dist/* isScalar */.jn)(node)) {
            // PyYAML resolves a scalar tagged `!` as if it were plain, quoted or not: `! '12'` is the int 12.
            if (node.type !== 'PLAIN' && explicit !== '!')
                return YAML_TAG + 'str';
            // Python's `$` also matches before a final newline.
            const source = this.scalarText(node).replace(/\n$/, '');
            for (const [name, re] of IMPLICIT)
                if (re.test(source))
                    return YAML_TAG + name;
            return YAML_TAG + 'str';
        }
        return YAML_TAG + ((0,dist/* isMap */.jh)(node) ? 'map' : 'seq');
    }
    scalar(node, tag, start) {
        const text = this.scalarText(node);
        switch (tag) {
            case YAML_TAG + 'str':
                return text;
            case YAML_TAG + 'null':
                return null;
            case YAML_TAG + 'bool': {
                const lower = text.toLowerCase();
                if (['yes', 'true', 'on'].includes(lower))
                    return true;
                if (['no', 'false', 'off'].includes(lower))
                    return false;
                return this.fail(start, `invalid boolean value ${pyStrRepr(text)}`);
            }
            case YAML_TAG + 'int':
                return constructInt(text) ?? this.fail(start, `invalid int value ${pyStrRepr(text)}`);
            case YAML_TAG + 'float':
                return constructFloat(text) ?? this.fail(start, `invalid float value ${pyStrRepr(text)}`);
            case YAML_TAG + 'timestamp':
                return constructTimestamp(text) ?? this.fail(start, `invalid timestamp ${pyStrRepr(text)}`);
            case YAML_TAG + 'binary': {
                // Like Python's base64.decodebytes, characters outside the alphabet are skipped.
                const bytes = Buffer.from(text.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
                return new PyOpaque('bytes', pyBytesRepr(bytes));
            }
            default:
                if ([YAML_TAG + 'map', YAML_TAG + 'seq', YAML_TAG + 'set', YAML_TAG + 'omap'].includes(tag)) {
                    const kind = tag.endsWith('seq') || tag.endsWith('omap') ? 'sequence' : 'mapping';
                    return this.fail(start, `expected a ${kind} node, but found scalar`);
                }
                return this.fail(start, `could not determine a constructor for the tag ${pyStrRepr(tag)}`);
        }
    }
    /**
     * The YAML text ends where the closing `---` line starts, so its last line has no line break. PyYAML then
     * gives a block scalar on that line no final newline (`a: |` + `  x` is 'x'); the yaml package adds one.
     */
    scalarText(node) {
        const text = String(node.source ?? '');
        return this.blockScalarAtEnd(node) ? text.slice(0, -1) : text;
    }
    blockScalarAtEnd(node) {
        if (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED')
            return false;
        if (!String(node.source).endsWith('\n') || !node.range)
            return false;
        const src = this.source;
        const contentEnd = src.replace(/[ \t\n]+$/, '').length;
        return !src.slice(contentEnd).includes('\n') && node.range[0] < contentEnd && node.range[1] >= contentEnd;
    }
    sequence(node, start) {
        const tag = this.tagOf(node);
        if (tag === YAML_TAG + 'omap' || tag === YAML_TAG + 'pairs') {
            const pairs = [];
            this.built.set(node, pairs);
            this.positions.recordNode(pairs, this.toPos(start));
            for (const item of node.items) {
                const itemStart = item?.range?.[0] ?? start;
                if (!(0,dist/* isMap */.jh)(item))
                    return this.fail(itemStart, 'expected a mapping of length 1');
                if (item.items.length !== 1) {
                    return this.fail(itemStart, `expected a single mapping item, but found ${item.items.length} items`);
                }
                const key = this.construct(item.items[0].key);
                const value = this.construct(item.items[0].value);
                pairs.push(new PyOpaque('tuple', `(${pyRepr(key)}, ${pyRepr(value)})`));
            }
            return pairs;
        }
        if (tag !== YAML_TAG + 'seq')
            return this.wrongKind(tag, 'sequence', start);
        const list = [];
        this.built.set(node, list);
        this.positions.recordNode(list, this.toPos(start));
        const itemPositions = [];
        for (const item of node.items) {
            const itemNode = item;
            itemPositions.push(itemNode?.range ? this.toPos(itemNode.range[0]) : undefined);
            list.push(this.construct(item));
        }
        this.positions.recordItems(list, itemPositions);
        return list;
    }
    mapping(node, start) {
        const tag = this.tagOf(node);
        if (tag !== YAML_TAG + 'map' && tag !== YAML_TAG + 'set')
            return this.wrongKind(tag, 'mapping', start);
        const dict = new Map();
        this.built.set(node, dict);
        this.positions.recordNode(dict, this.toPos(start));
        for (const pair of this.flatten(node)) {
            const keyNode = pair.key;
            const valueNode = pair.value;
            // A plain `=` key is PyYAML's value tag, which flatten_mapping turns into a str.
            const isValueKey = keyNode !== null && (0,dist/* isScalar */.jn)(keyNode) && this.tagOf(keyNode) === YAML_TAG + 'value';
            const key = isValueKey ? '=' : this.construct(keyNode);
            if (!isHashable(key))
                return this.fail(keyNode?.range?.[0] ?? start, 'found unhashable key');
            const value = this.construct(valueNode);
            const existing = equalKey(dict, key);
            dict.set(existing, value);
            this.positions.recordEntry(dict, existing, {
                key: keyNode?.range ? this.toPos(keyNode.range[0]) : undefined,
                value: valueNode?.range ? this.toPos(valueNode.range[0]) : undefined
            });
        }
        if (tag === YAML_TAG + 'set') {
            const items = [...dict.keys()].map(key => pyRepr(key));
            const set = new PyOpaque('set', items.length ? `{${items.join(', ')}}` : 'set()');
            this.built.set(node, set);
            return set;
        }
        return dict;
    }
    wrongKind(tag, found, start) {
        const name = tag.startsWith(YAML_TAG) ? tag.slice(YAML_TAG.length) : '';
        if (['str', 'int', 'float', 'bool', 'null', 'timestamp', 'binary'].includes(name)) {
            return this.fail(start, `expected a scalar node, but found ${found}`);
        }
        if (name === 'map' || name === 'set')
            return this.fail(start, `expected a mapping node, but found ${found}`);
        if (name === 'seq')
            return this.fail(start, `expected a sequence node, but found ${found}`);
        return this.fail(start, `could not determine a constructor for the tag ${pyStrRepr(tag)}`);
    }
    /** PyYAML's flatten_mapping: `<<` merges come first, so the mapping's own keys win; earlier merges win. */
    flatten(node) {
        const own = [];
        const merged = [];
        for (const pair of node.items) {
            const keyNode = pair.key;
            if (keyNode && (0,dist/* isScalar */.jn)(keyNode) && this.tagOf(keyNode) === YAML_TAG + 'merge') {
                const value = this.deref(pair.value);
                const start = pair.value?.range?.[0] ?? keyNode.range?.[0] ?? 0;
                if ((0,dist/* isMap */.jh)(value)) {
                    merged.push(...this.flatten(value));
                }
                else if ((0,dist/* isSeq */.oP)(value)) {
                    const groups = [];
                    for (const sub of value.items) {
                        const target = this.deref(sub);
                        if (!(0,dist/* isMap */.jh)(target))
                            return this.fail(start, 'expected a mapping for merging');
                        groups.push(this.flatten(target));
                    }
                    for (const group of groups.reverse())
                        merged.push(...group);
                }
                else {
                    return this.fail(start, 'expected a mapping or list of mappings for merging');
                }
            }
            else {
                own.push({ key: pair.key, value: pair.value });
            }
        }
        return [...merged, ...own];
    }
    deref(node) {
        return (0,dist/* isAlias */.Vj)(node) ? node.resolve(this.doc) : node;
    }
}
const NUMERIC = ['boolean', 'bigint', 'number'];
// Python's dict: True, 1 and 1.0 are the same key, and the first spelling of it is kept.
function equalKey(dict, key) {
    if (!NUMERIC.includes(typeof key) || dict.has(key))
        return key;
    for (const existing of dict.keys()) {
        // Loose equality across boolean, bigint and number is exactly Python's numeric equality.
        if (NUMERIC.includes(typeof existing) && existing == key)
            return existing;
    }
    return key;
}
function isHashable(value) {
    if (Array.isArray(value) || value instanceof Map)
        return false;
    return !(value instanceof PyOpaque && value.typeName === 'set');
}
// construct_yaml_int: underscores dropped; 0b, 0x, leading-0 octal, base-60 with colons.
function constructInt(text) {
    let value = pyStrip(text.replace(/_/g, ''));
    let sign = 1n;
    if (value.startsWith('-'))
        sign = -1n;
    if (value.startsWith('-') || value.startsWith('+'))
        value = value.slice(1);
    try {
        if (value === '0')
            return 0n;
        if (value.startsWith('0b'))
            return sign * BigInt('0b' + value.slice(2));
        if (value.startsWith('0x'))
            return sign * BigInt('0x' + value.slice(2));
        // Python's int(value, 8) also takes an `0o` prefix (only reachable with an explicit !!int).
        if (value.startsWith('0'))
            return sign * BigInt('0o' + value.replace(/^0[oO](?=.)/, ''));
        if (value.includes(':')) {
            let total = 0n;
            let base = 1n;
            for (const part of value.split(':').reverse()) {
                total += BigInt(part) * base;
                base *= 60n;
            }
            return sign * total;
        }
        return /^[0-9]+$/.test(value) ? sign * BigInt(value) : null;
    }
    catch {
        return null;
    }
}
// construct_yaml_float: underscores dropped, .inf/.nan, base-60 with colons, else Python's float().
function constructFloat(text) {
    let value = pyStrip(text.replace(/_/g, '').toLowerCase());
    let sign = 1;
    if (value.startsWith('-'))
        sign = -1;
    if (value.startsWith('-') || value.startsWith('+'))
        value = value.slice(1);
    if (value === '.inf')
        return sign * Infinity;
    if (value === '.nan' || value === 'nan')
        return NaN;
    if (value === 'inf' || value === 'infinity')
        return sign * Infinity;
    if (value.includes(':')) {
        let total = 0;
        let base = 1;
        for (const part of value.split(':').reverse()) {
            total += Number(part) * base;
            base *= 60;
        }
        return sign * total;
    }
    if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?$/.test(value))
        return null;
    return sign * Number(value);
}
const TIMESTAMP = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;
// construct_yaml_timestamp: a datetime.date, or a datetime.datetime (tz-aware with an offset or Z).
function constructTimestamp(text) {
    const m = TIMESTAMP.exec(text);
    if (!m)
        return null;
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (month < 1 || month > 12)
        return null;
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    if (year < 1 || day < 1 || day > daysInMonth)
        return null;
    if (m[4] === undefined)
        return new PyOpaque('date', `datetime.date(${year}, ${month}, ${day})`);
    const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])];
    if (hour > 23 || minute > 59 || second > 59)
        return null;
    const micro = m[7] ? Number(m[7].slice(0, 6).padEnd(6, '0')) : 0;
    const fields = [year, month, day, hour, minute];
    if (micro)
        fields.push(second, micro);
    else if (second)
        fields.push(second);
    let tz = '';
    if (m[9]) {
        let seconds = (Number(m[10]) * 60 + Number(m[11] ?? 0)) * 60;
        if (m[9] === '-')
            seconds = -seconds;
        if (seconds <= -86400 || seconds >= 86400)
            return null;
        tz = seconds === 0 ? 'datetime.timezone.utc' : `datetime.timezone(${timedeltaRepr(seconds)})`;
    }
    else if (m[8]) {
        tz = 'datetime.timezone.utc';
    }
    const args = fields.join(', ') + (tz ? `, tzinfo=${tz}` : '');
    return new PyOpaque('datetime', `datetime.datetime(${args})`);
}
function timedeltaRepr(seconds) {
    const days = Math.floor(seconds / 86400);
    const rest = seconds - days * 86400;
    const parts = [];
    if (days)
        parts.push(`days=${days}`);
    if (rest)
        parts.push(`seconds=${rest}`);
    return `datetime.timedelta(${parts.join(', ')})`;
}

;// CONCATENATED MODULE: ./src/ralph/shlex.ts
// Python's shlex.split / shlex.quote, which the reference runtime uses for `agent:` and `run:` strings.
// A port of the state machine in CPython's shlex.read_token for posix=True, whitespace_split=True and no
// comment characters: only the behaviour, so that argv and error messages match the reference exactly.
/** Raised where Python's shlex raises ValueError; `message` is Python's text. */
class ShlexError extends Error {
    constructor(message) {
        super(message);
        this.name = 'ShlexError';
    }
}
// shlex's whitespace is ASCII only: a non-breaking space is part of a word.
const WHITESPACE = ' \t\r\n';
const QUOTES = `'"`;
const ESCAPE = '\\';
// Inside these quotes a backslash escapes (only the quote itself or a backslash, as in POSIX shells).
const ESCAPED_QUOTES = '"';
/** Python's `shlex.split(s)` (posix mode, comments off). Throws ShlexError like Python's ValueError. */
function shlex_shlexSplit(s) {
    const tokens = [];
    let pos = 0;
    // Between tokens ' ', inside a word 'a', inside quotes the quote char, after a backslash '\\'.
    let state = ' ';
    while (state !== 'eof') {
        let token = '';
        let quoted = false;
        let escapedState = ' ';
        let done = false;
        while (!done) {
            const ch = pos < s.length ? s[pos++] : '';
            if (state === ' ') {
                if (ch === '') {
                    state = 'eof';
                    done = true;
                }
                else if (WHITESPACE.includes(ch)) {
                    continue;
                }
                else if (ch === ESCAPE) {
                    escapedState = 'a';
                    state = ch;
                }
                else if (QUOTES.includes(ch)) {
                    state = ch;
                }
                else {
                    token = ch;
                    state = 'a';
                }
            }
            else if (QUOTES.includes(state)) {
                quoted = true;
                if (ch === '')
                    throw new ShlexError('No closing quotation');
                if (ch === state) {
                    state = 'a';
                }
                else if (ch === ESCAPE && ESCAPED_QUOTES.includes(state)) {
                    escapedState = state;
                    state = ch;
                }
                else {
                    token += ch;
                }
            }
            else if (state === ESCAPE) {
                if (ch === '')
                    throw new ShlexError('No escaped character');
                if (QUOTES.includes(escapedState) && ch !== state && ch !== escapedState)
                    token += state;
                token += ch;
                state = escapedState;
            }
            else {
                // state 'a': inside a word
                if (ch === '') {
                    state = 'eof';
                    done = true;
                }
                else if (WHITESPACE.includes(ch)) {
                    state = ' ';
                    done = true;
                }
                else if (QUOTES.includes(ch)) {
                    state = ch;
                }
                else if (ch === ESCAPE) {
                    escapedState = 'a';
                    state = ch;
                }
                else {
                    token += ch;
                }
            }
        }
        // An empty token counts only if it was quoted ('' or "").
        if (token !== '' || quoted)
            tokens.push(token);
    }
    return tokens;
}
// Python: re.compile(r'[^\w@%+=:,./-]', re.ASCII)
const UNSAFE = /[^\w@%+=:,./-]/;
/** Python's `shlex.quote(s)`: `''` for empty, unchanged when only safe characters, else single-quoted. */
function shlexQuote(s) {
    if (s === '')
        return "''";
    if (!UNSAFE.test(s))
        return s;
    return "'" + s.replace(/'/g, `'"'"'`) + "'";
}

;// CONCATENATED MODULE: ./src/ralph/render.ts
// Turning the RALPH.md body into the prompt, byte for byte as the reference does (engine._assemble_prompt):
// strip, remove HTML comments, strip, substitute placeholders in one pass, append the credit trailer.





const NAME = '[a-zA-Z0-9_-]+';
/**
 * `{{ kind.name }}` for the three kinds. Whitespace (Python's `\s`: newlines and tabs too) is allowed after
 * `{{` and before `}}`, none around the dot. Kinds are lowercase. Groups: 1 = kind, 2 = name.
 */
const render_PLACEHOLDER_RE = new RegExp(`\\{\\{[${PY_WS_CLASS}]*(commands|args|ralph)\\.(${NAME})[${PY_WS_CLASS}]*\\}\\}`, 'g');
const ARGS_RE = new RegExp(`\\{\\{[${PY_WS_CLASS}]*args\\.(${NAME})[${PY_WS_CLASS}]*\\}\\}`, 'g');
/** Appended verbatim after substitution when `credit` is on (no trailing newline). */
const CREDIT_TRAILER = '\n\n---\n\n' +
    'IMPORTANT: When you make any git commits, include the following trailer ' +
    'at the end of your commit message:\n\n' +
    'Co-authored-by: Ralphify <noreply@ralphify.co>';
/**
 * Fills placeholders in a single pass: inserted values are never scanned again. A known kind with an unknown
 * name becomes '' (`{{ args.nope }}`); anything else (`{{ env.X }}`, `{{ commands }}`) stays literal.
 */
function renderPlaceholders(template, values) {
    return template.replace(render_PLACEHOLDER_RE, (_m, kind, name) => lookup(values[kind], name));
}
/**
 * Puts arg values into a command's `run` string before it is shell-split: each `{{ args.x }}` becomes the
 * shlex-quoted value, so any value is one argv token; an arg that was not given becomes nothing (not '').
 * `{{ commands.x }}` and `{{ ralph.x }}` are left as they are, like the reference.
 */
function resolveArgsInRun(run, args) {
    return run.replace(ARGS_RE, (_m, name) => (Object.hasOwn(args, name) ? shlexQuote(args[name]) : ''));
}
/** A command's argv: args resolved into `run`, then split like Python's shlex.split (throws ShlexError). */
function commandArgv(run, args) {
    return shlexSplit(resolveArgsInRun(run, args));
}
/** The reference runs a command from the ralph's folder when its arg-resolved `run` starts with `./`. */
function runsFromRalphDir(resolvedRun) {
    return pyLstrip(resolvedRun).startsWith('./');
}
/** The body as a template: stripped, HTML comments removed, stripped again (Python's whitespace rules). */
function promptTemplate(text) {
    return pyStrip(stripHtmlComments(pyStrip(splitFrontmatter(text).body)));
}
/** The last RALPH.md text whose frontmatter parsed, and its template (see {@link ralphTemplate}). */
let lastParsed;
/**
 * RALPH.md as re-read now, as a template: like the reference, the frontmatter is parsed again (broken YAML
 * throws RalphError) but only the body is used. Parsing is a pure function of the text, so the last text
 * that parsed is remembered: a loop re-reading an unchanged file skips the YAML parse (a text that fails
 * is never remembered, so it fails every time).
 */
function ralphTemplate(text, file = 'RALPH.md') {
    if (lastParsed !== undefined && lastParsed.text === text && lastParsed.file === file)
        return lastParsed.template;
    parseFrontmatter(file, text);
    const template = promptTemplate(text);
    lastParsed = { file, text, template };
    return template;
}
/**
 * The prompt for one iteration from RALPH.md as re-read now. Like the reference, the frontmatter is parsed
 * again (broken YAML throws RalphError and so fails the iteration) but only the body is used.
 */
function assemblePrompt(text, values, credit, file = 'RALPH.md') {
    const prompt = renderPlaceholders(ralphTemplate(text, file), values);
    return credit ? prompt + CREDIT_TRAILER : prompt;
}
/** The reference's format_duration: `0.5s` below a minute, then `2m 30s`, then `1h 15m`. */
// Byte-identical to ralphify (prompts and the CLI's log): the reports' padded, ms-based formatDuration is loop/overview.ts.
function formatDuration(seconds) {
    const tenths = pyFormatFixed1(seconds);
    if (Number(tenths) < 60)
        return `${tenths}s`;
    // Round half up on the total, as the reference does (int(seconds + 0.5)).
    const total = Math.trunc(seconds + 0.5);
    const minutes = Math.floor(total / 60);
    if (minutes < 60)
        return `${minutes}m ${total % 60}s`;
    return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
/** Appended to a command's output when it ran out of time (the dash is an em dash, U+2014). */
function timeoutMarker(name, timeoutSeconds) {
    return `\n\n[Command '${name}' timed out after ${formatDuration(timeoutSeconds)} — output may be incomplete]`;
}
function lookup(table, name) {
    return table !== undefined && Object.hasOwn(table, name) ? table[name] : '';
}

;// CONCATENATED MODULE: ./src/ralph/args.ts
// User args after the ralph path (`ralph run my-ralph --focus tests` or `my-ralph tests`), parsed with the
// reference's rules (cli._parse_user_args). Errors are usage errors: exit code 2.




const NAME_RE = /^[a-zA-Z0-9_-]+$/;
const VALID_NAME_CHARS_MSG = 'Names may only contain letters, digits, hyphens, and underscores.';
/**
 * `--name value` and `--name=value` set any name (declared or not); other tokens fill the declared names in
 * order, skipping names already set by a flag; a bare `--` makes every later token positional.
 * Note the reference's CLI parser swallows the first `--` before this runs (see the spec, §9).
 */
function parseUserArgs(tokens, declared) {
    // No prototype: an arg may be called `__proto__` or `constructor`.
    const result = Object.create(null);
    let positionalIndex = 0;
    let flagsEnded = false;
    for (let i = 0; i < tokens.length; i++) {
        const token = tokens[i];
        if (!flagsEnded && token === '--') {
            flagsEnded = true;
            continue;
        }
        if (!flagsEnded && token.startsWith('--')) {
            const rest = token.slice(2);
            let name;
            let value;
            const eq = rest.indexOf('=');
            if (eq >= 0) {
                name = rest.slice(0, eq);
                value = rest.slice(eq + 1);
            }
            else {
                name = rest;
                if (i + 1 >= tokens.length)
                    throw new RalphError(`Flag '--${name}' requires a value.`, 2);
                value = tokens[++i];
            }
            if (!NAME_RE.test(name)) {
                throw new RalphError(`Arg name '${name}' contains invalid characters. ${VALID_NAME_CHARS_MSG}`, 2);
            }
            result[name] = value;
            continue;
        }
        if (declared.length === 0) {
            throw new RalphError(`Positional argument '${token}' requires args declared in RALPH.md frontmatter. ` +
                `Use --name value syntax or add 'args: [...]' to your RALPH.md.` +
                (/^-[^-]/.test(token)
                    ? ` '${token}' is not an option of run either: see 'ralph-action run --help'.`
                    : ''), 2);
        }
        while (positionalIndex < declared.length && Object.hasOwn(result, declared[positionalIndex])) {
            positionalIndex++;
        }
        if (positionalIndex >= declared.length) {
            throw new RalphError(`Too many positional arguments. Expected at most ${declared.length} (${declared.join(', ')}).`, 2);
        }
        result[declared[positionalIndex]] = token;
        positionalIndex++;
    }
    return result;
}
/**
 * The args a ralph reads: the names its frontmatter declares and every `{{ args.NAME }}` in its file (in the
 * prompt, a command or a check). Undefined when the file does not parse: loading it reports that itself.
 */
function args_argsRead(file, text) {
    try {
        const names = new Set();
        const { data, split } = readFrontmatter(file, text);
        const declared = data.get('args');
        if (declared !== undefined && declared !== null && !Array.isArray(declared))
            return undefined;
        for (const name of declared ?? [])
            if (typeof name === 'string')
                names.add(name);
        // Where a value can arrive: the prompt as the agent gets it (HTML comments gone), and the frontmatter.
        for (const m of `${split.yaml ?? ''}\n${stripHtmlComments(split.body)}`.matchAll(render_PLACEHOLDER_RE))
            if (m[1] === 'args')
                names.add(m[2]);
        return [...names];
    }
    catch {
        return undefined;
    }
}

;// CONCATENATED MODULE: ./src/ralph/duration.ts
// Durations as people write them, for the CLI's --max-time and the action's time inputs: a number, or a
// number with a unit (90s, 2m, 1h). What a bare number means is the caller's: seconds on the CLI (as
// ralphify's --timeout), minutes in the action (as a job's timeout-minutes).
const UNIT_SECONDS = { s: 1, sec: 1, m: 60, min: 60, h: 3600 };
/** `90s`, `45m`, `2h`, `1.5` (in `bare` units) → seconds; undefined when it is not a positive duration. */
function duration_parseDuration(value, bare) {
    const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(s|sec|m|min|h)?$/i.exec(value.trim());
    if (!m)
        return undefined;
    const seconds = Number(m[1]) * UNIT_SECONDS[(m[2] ?? bare).toLowerCase()];
    return seconds > 0 ? seconds : undefined;
}

;// CONCATENATED MODULE: ./src/text/closest.ts
// The word a person probably meant: the nearest of the known ones, when it is near enough to be a typo.
/** Edits (insert, delete, replace) that turn `a` into `b`. */
function editDistance(a, b) {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
        const next = [i];
        for (let j = 1; j <= b.length; j++)
            next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        row = next;
    }
    return row[b.length];
}
/** The known word nearest to `typed`, within `most` edits (the first of equals); undefined when none is. */
function closest(typed, known, most = 2) {
    let best;
    for (const word of known) {
        const edits = editDistance(typed, word);
        if (edits <= most && (!best || edits < best.edits))
            best = { word, edits };
    }
    return best?.word;
}

;// CONCATENATED MODULE: ./src/ralph/resolve.ts
// From what the user typed (`ralph run <path>`) to a RALPH.md, as the reference resolves it
// (cli._resolve_ralph_paths): a folder, a file named RALPH.md, or the name of an installed ralph.




const resolve_RALPH_MARKER = 'RALPH.md';
/** Installed ralphs live in `<project>/.agents/ralphs/<name>/` and `~/.agents/ralphs/<name>/`. */
const resolve_INSTALLED_RALPHS_DIR = '.agents/ralphs';
/**
 * Resolves `pathArg` against `cwd` (the project root): an existing folder means `<folder>/RALPH.md`; an
 * existing file must be named RALPH.md; otherwise `.agents/ralphs/<name>/RALPH.md` in `cwd`, then in `home`.
 * Throws RalphError (exit 1) with the reference's messages.
 */
function resolve_resolveRalphPath(pathArg, opts) {
    const typed = purePath(pathArg);
    const onDisk = (p) => (p.startsWith('/') ? p : `${opts.cwd.replace(/\/+$/, '')}/${p}`);
    let dir;
    let file;
    let installed;
    if (isDirectory(onDisk(typed))) {
        dir = typed;
        file = joinPure(typed, resolve_RALPH_MARKER);
    }
    else if (isFile(onDisk(typed)) && baseName(typed) === resolve_RALPH_MARKER) {
        dir = parentPure(typed);
        file = typed;
    }
    else {
        const bases = [
            ['project', joinPure(purePath(opts.cwd), resolve_INSTALLED_RALPHS_DIR)],
            ['home', joinPure(purePath(opts.home), resolve_INSTALLED_RALPHS_DIR)]
        ];
        const found = bases.find(([, base]) => isFile(joinPure(joinPure(base, pathArg), resolve_RALPH_MARKER)));
        if (!found) {
            const near = nearestRalph(typed, onDisk, opts);
            throw new RalphError(`'${pathArg}' is not a directory, ${resolve_RALPH_MARKER} file, or installed ralph.` +
                (near ? ` Did you mean '${near}'?` : ''));
        }
        dir = joinPure(found[1], pathArg);
        file = joinPure(dir, resolve_RALPH_MARKER);
        installed = { resolvedFrom: found[0], notice: `Resolved: ${file}` };
    }
    if (!exists(onDisk(file)))
        throw new RalphError(`${resolve_RALPH_MARKER} not found at '${file}'.`);
    return { file: realPath(onDisk(file)), dir: realPath(onDisk(dir)), ...installed };
}
/** A ralph near what was typed: a sibling folder holding a RALPH.md, or an installed ralph, a typo away. */
function nearestRalph(typed, onDisk, opts) {
    const parent = parentPure(typed);
    let siblings = [];
    try {
        siblings = external_node_fs_default().readdirSync(onDisk(parent))
            .filter(name => isFile(onDisk(joinPure(joinPure(parent, name), resolve_RALPH_MARKER))));
    }
    catch {
        // no such folder: only the installed ralphs are near
    }
    const sibling = closest(baseName(typed), siblings);
    if (sibling)
        return parent === '.' ? sibling : joinPure(parent, sibling);
    return parent === '.' ? closest(typed, resolve_listInstalledRalphs(opts.cwd, opts.home)) : undefined;
}
/** Names of the installed ralphs (folders holding a RALPH.md) in the project and in home, sorted, each once. */
function resolve_listInstalledRalphs(cwd, home) {
    const names = new Set();
    for (const root of [cwd, home]) {
        const base = external_node_path_default().join(root, resolve_INSTALLED_RALPHS_DIR);
        let entries;
        try {
            entries = external_node_fs_default().readdirSync(base);
        }
        catch {
            continue;
        }
        for (const name of entries) {
            if (isFile(external_node_path_default().join(base, name, resolve_RALPH_MARKER)))
                names.add(name);
        }
    }
    return [...names].sort();
}
// pathlib.PurePosixPath's string form: `.` parts and repeated or trailing slashes dropped, `..` kept,
// a leading `//` (and only exactly two) kept.
function purePath(p) {
    const root = p.startsWith('//') && !p.startsWith('///') ? '//' : p.startsWith('/') ? '/' : '';
    const parts = p.split('/').filter(part => part !== '' && part !== '.');
    const joined = root + parts.join('/');
    return joined === '' ? '.' : joined;
}
// pathlib's `a / b`: an absolute `b` replaces `a`.
function joinPure(a, b) {
    if (b.startsWith('/'))
        return purePath(b);
    if (a === '.')
        return purePath(b);
    return purePath(`${a}/${b}`);
}
function parentPure(p) {
    const slash = p.lastIndexOf('/');
    if (slash < 0)
        return '.';
    const parent = p.slice(0, slash);
    return parent === '' || parent === '/' ? p.slice(0, slash + 1) : parent;
}
function baseName(p) {
    if (p === '.' || p === '/' || p === '//')
        return '';
    return p.slice(p.lastIndexOf('/') + 1);
}
function isDirectory(p) {
    try {
        return external_node_fs_default().statSync(p).isDirectory();
    }
    catch {
        return false;
    }
}
function isFile(p) {
    try {
        return external_node_fs_default().statSync(p).isFile();
    }
    catch {
        return false;
    }
}
function exists(p) {
    return external_node_fs_default().existsSync(p);
}
function realPath(p) {
    try {
        return external_node_fs_default().realpathSync(p);
    }
    catch {
        return external_node_path_default().resolve(p);
    }
}

;// CONCATENATED MODULE: ./src/ralph/arg-words.ts
// `{{ args.X }}` in a command's `run` becomes the value, shell-quoted, before `run` is split into words: so
// any value is exactly one word, but only where the placeholder is a word of its own. Inside a larger word,
// and above all inside the author's quotes (`bash -c 'echo {{ args.x }}'`), the value's quoting and the
// author's combine, and a value can close the author's quotes and go on as a script. The reference does the
// same, so `ralph run` keeps it; `validate` warns, and the action refuses such a ralph for runs whose values
// come from a comment, a label or a pull request. The safe ways: a word of its own, or the environment.

const arg_words_WHITESPACE = new Set([' ', '\t', '\r', '\n']);
/** The variable a command finds an arg's value in: `RALPH_ARG_FOCUS` for `focus`, `RALPH_ARG_A_B` for `a-b`. */
const argEnvName = (name) => `RALPH_ARG_${name.toUpperCase().replace(/-/g, '_')}`;
/** Every command gets each arg's value in its environment, besides where `run` places it. */
function argEnvironment(args) {
    return Object.fromEntries(Object.entries(args).map(([name, value]) => [argEnvName(name), value]));
}
/**
 * The arg placeholders of `run` that are not a word of their own (glued to other characters, or inside
 * quotes), in order. Words are found as shlex's POSIX mode finds them: quotes and backslashes, split at
 * blanks.
 */
function argsInsideWords(run) {
    const found = [];
    const placeholders = new Map();
    for (const m of run.matchAll(render_PLACEHOLDER_RE))
        if (m[1] === 'args')
            placeholders.set(m.index ?? 0, m);
    let quote;
    let inWord = false;
    for (let i = 0; i < run.length; i++) {
        const m = placeholders.get(i);
        if (m) {
            const end = i + m[0].length;
            const glued = quote !== undefined || inWord || (end < run.length && !arg_words_WHITESPACE.has(run[end]));
            if (glued)
                found.push({ name: m[2], placeholder: m[0] });
            inWord = true;
            i = end - 1;
            continue;
        }
        const ch = run[i];
        if (quote === "'") {
            if (ch === "'")
                quote = undefined;
        }
        else if (quote === '"') {
            if (ch === '\\')
                i++;
            else if (ch === '"')
                quote = undefined;
        }
        else if (arg_words_WHITESPACE.has(ch)) {
            inWord = false;
        }
        else {
            inWord = true;
            if (ch === '\\')
                i++;
            else if (ch === "'" || ch === '"')
                quote = ch;
        }
    }
    return found;
}

;// CONCATENATED MODULE: ./src/ralph/which.ts
// The program lookup is proc's (the isolated spawn needs it too); the format checks the agent with it.


;// CONCATENATED MODULE: ./src/ralph/programs.ts
// Which programs a ralph will start, found before anything runs: a missing one is said at once, in one
// line, instead of after the agent has run (and been paid for).






// bash's keywords and builtins (`compgen -k; compgen -b`): a gate may start with one, and none is a file.
const BASH_WORDS = new Set(('if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc ' +
    '. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs ' +
    'disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local ' +
    'logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend ' +
    'test times trap true type typeset ulimit umask unalias unset wait').split(' '));
/** Characters after which a gate's words are bash's to expand: its programs cannot be known beforehand. */
const EXPANDS = /[$`'"\\*?[\]{}~()<>=]/;
/**
 * The programs a gate's bash line starts, where that can be known without running bash: the first word of
 * each simple command (after `NAME=value` assignments). Lines with quoting or expansions yield only their
 * first command's program; keywords, builtins and paths (the agent may be asked to write them) are left out.
 */
function gatePrograms(run) {
    const simple = !/[$`'"\\(){}<>]/.test(run);
    const segments = simple ? run.split(/&&|\|\||[;|&\n]/) : [run.split(/&&|\|\||[;|&\n]/)[0]];
    const programs = [];
    for (const segment of segments) {
        const words = segment.trim().split(/\s+/);
        while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]))
            words.shift();
        const word = words[0];
        if (!word || EXPANDS.test(word) || /^-|\//.test(word) || BASH_WORDS.has(word))
            continue;
        if (!programs.includes(word))
            programs.push(word);
    }
    return programs;
}
/** The program a `commands:` entry starts (its args filled in), and the folder a relative one is found in. */
function commandProgram(run, userArgs, dirs) {
    const runString = resolveArgsInRun(run, userArgs);
    let argv;
    try {
        argv = shlex_shlexSplit(runString);
    }
    catch {
        return undefined; // the run itself reports the syntax, as the reference does
    }
    if (argv.length === 0)
        return undefined;
    return {
        program: argv[0],
        cwd: runsFromRalphDir(runString) ? dirs.ralphDir : dirs.projectRoot,
        runString
    };
}
/**
 * Whether `program` can be found: a bare name on PATH (executable), a path as a file relative to `cwd`.
 * A file that exists but is not executable counts as found: running it gives the precise error.
 */
function programFound(program, cwd, searchPath) {
    if (!program.includes('/'))
        return which(program, { cwd, path: searchPath }) !== null;
    try {
        return external_node_fs_default().statSync(program.startsWith('/') ? program : `${cwd.replace(/\/+$/, '')}/${program}`).isFile();
    }
    catch {
        return false;
    }
}
/** The reference's message for a command whose program is missing (it says so when the command runs). */
const commandNotFound = (name, runString) => `Command '${name}' binary not found: ${pyStrRepr(runString)}. Check the 'commands' field in your ${resolve_RALPH_MARKER} frontmatter.`;
/** The problem with a `commands:` entry whose program cannot be found, or undefined. */
function missingCommandProgram(command, userArgs, dirs, searchPath) {
    const found = commandProgram(command.run, userArgs, dirs);
    if (found && !programFound(found.program, found.cwd, searchPath))
        return commandNotFound(command.name, found.runString);
    return undefined;
}
/** The problem with a gate whose program cannot be found (bash would say "command not found"), or undefined. */
function missingGateProgram(check, cwd, searchPath) {
    const program = gatePrograms(check.run).find(p => !programFound(p, cwd, searchPath));
    if (program === undefined)
        return undefined;
    const command = check.run === check.name ? '' : ` (its command: ${check.run})`;
    return `Check '${check.name}' cannot run: '${program}' is not on PATH${command}. Install it, or fix the check.`;
}
/** The problem with an agent whose program cannot be found, in the reference's words, or undefined. */
function missingAgentProgram(agentArgv, cwd, searchPath) {
    const program = agentArgv[0];
    if (program === undefined || which(program, { cwd, path: searchPath }))
        return undefined;
    return `Agent command '${program}' not found on PATH.`;
}

;// CONCATENATED MODULE: ./src/ralph/protect.ts
// The protected-paths setting (`protected:` in RALPH.md, the action's `protected-paths`): `auto`, `none`, or globs
// relative to the repository's top, `auto` possibly among them. What they protect is decided in loop/protected.ts.
/** The setting as given: `auto` (default), `none`, or globs (where `auto` may be one of them). */
function parseProtectSetting(words) {
    const list = words.map(word => word.trim()).filter(word => word !== '');
    if (list.length === 0)
        return ['auto'];
    if (list.includes('none') && list.length > 1)
        return { problem: "'none' turns protection off and cannot be listed with other globs" };
    for (const glob of list) {
        if (glob === 'auto' || glob === 'none')
            continue;
        if (glob.startsWith('/') || glob.split('/').includes('..'))
            return {
                problem: `'${glob}' must be a path inside the repository, relative to its top (no leading / or ..)`
            };
        if (/[\n\r\0]/.test(glob))
            return { problem: `a glob holds a line break or a NUL` };
    }
    return list;
}

;// CONCATENATED MODULE: ./src/ralph/tree-file.ts
// A ralph's own files (RALPH.md, the guardrails file) live in the work tree, which is the agent's: between
// two reads it may swap one for a link (to /proc/self/environ: the action's whole environment into the next
// prompt and the record; to a root-only file) or a FIFO (whose read blocks the event loop and every budget
// timer). So the path is pinned before any agent runs, and each read opens exactly that file: no link in any
// of its folders, none as the file itself (O_NOFOLLOW), nothing but a regular file (fstat of the opened fd).


/** Bytes read of a ralph's file at most: a prompt file larger than this is not a prompt. */
const TREE_FILE_MAX_BYTES = 4 * 1024 * 1024;
/** Why a file of the work tree was not read; `code` ENOENT when it is just not there. */
class TreeFileError extends Error {
    file;
    reason;
    code;
    constructor(file, reason, code) {
        super(`${file} ${reason}`);
        this.file = file;
        this.reason = reason;
        this.code = code;
        this.name = 'TreeFileError';
    }
}
/**
 * The real path of `file` as it is now (before any agent ran): the file's own when it exists, else its
 * nearest existing folder's plus the rest. Read later with readTreeFile, it is that file or nothing.
 * A file of the work tree `tree` must stay in it after its links, and out of its `.git`: a link committed by an
 * earlier run's agent (on a branch this run continues) is the agent's as much as one it makes now.
 */
function pinTreeFile(file, tree) {
    const pinned = realPathOf(external_node_path_default().resolve(file));
    if (tree === undefined || !isInside(external_node_path_default().resolve(file), external_node_path_default().resolve(tree)))
        return pinned;
    const realTree = realPathOf(external_node_path_default().resolve(tree));
    if (!isInside(pinned, realTree) || isInside(pinned, external_node_path_default().join(realTree, '.git')))
        throw new TreeFileError(file, `leads through a link to ${pinned}, outside the work tree or inside its .git: the action follows no link of the work tree`);
    return pinned;
}
function realPathOf(abs) {
    try {
        return (0,external_node_fs_namespaceObject.realpathSync)(abs);
    }
    catch {
        const parent = external_node_path_default().dirname(abs);
        return parent === abs ? abs : external_node_path_default().join(realPathOf(parent), external_node_path_default().basename(abs));
    }
}
/** Whether the absolute path `child` is `parent` or below it. */
const isInside = (child, parent) => {
    const rel = external_node_path_default().relative(parent, child);
    return rel === '' || (!rel.startsWith('..') && !external_node_path_default().isAbsolute(rel));
};
/** Throws unless every folder on the way to `file` is a folder and not a link (the file itself: O_NOFOLLOW). */
function checkFolders(file) {
    const parts = external_node_path_default().resolve(file).split((external_node_path_default()).sep).filter(Boolean);
    let at = (external_node_path_default()).sep;
    for (const part of parts.slice(0, -1)) {
        at = external_node_path_default().join(at, part);
        let stat;
        try {
            stat = (0,external_node_fs_namespaceObject.lstatSync)(at);
        }
        catch (error) {
            const code = error.code;
            throw new TreeFileError(file, code === 'ENOENT' ? 'does not exist' : `cannot be reached (${code})`, code);
        }
        if (stat.isSymbolicLink())
            throw new TreeFileError(file, `is reached through a symbolic link (${at}): the action follows no link of the work tree`);
        if (!stat.isDirectory())
            throw new TreeFileError(file, `cannot be reached: ${at} is not a folder`, 'ENOTDIR');
    }
}
/**
 * The bytes of the regular file at `file` (a pinned path), opened without following a link anywhere on its
 * way and without blocking (a FIFO is refused, not waited on). Throws TreeFileError naming why not.
 */
function readTreeFile(file, maxBytes = TREE_FILE_MAX_BYTES) {
    checkFolders(file);
    return readRegularFile(file, maxBytes);
}
/**
 * The bytes of `file` if it is a regular file and not a link (O_NOFOLLOW: not even one that stays inside the
 * project), opened without blocking. Its folders are followed (their containment is the caller's check).
 * Throws TreeFileError naming why not.
 */
function readRegularFile(file, maxBytes = TREE_FILE_MAX_BYTES) {
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(file, external_node_fs_namespaceObject.constants.O_RDONLY | external_node_fs_namespaceObject.constants.O_NOFOLLOW | external_node_fs_namespaceObject.constants.O_NONBLOCK | external_node_fs_namespaceObject.constants.O_NOCTTY);
    }
    catch (error) {
        const code = error.code;
        if (code === 'ELOOP')
            throw new TreeFileError(file, 'is a symbolic link: the action follows no link of the work tree', code);
        if (code === 'ENOENT')
            throw new TreeFileError(file, 'does not exist', code);
        throw new TreeFileError(file, `cannot be opened (${code ?? error.message})`, code);
    }
    try {
        const stat = (0,external_node_fs_namespaceObject.fstatSync)(fd);
        if (!stat.isFile())
            throw new TreeFileError(file, 'is not a regular file (a FIFO, a device, a socket or a folder): it is not read');
        if (stat.size > maxBytes)
            throw new TreeFileError(file, `is larger than ${maxBytes} bytes (${stat.size}): it is not read`);
        const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
        let length = 0;
        for (;;) {
            const n = (0,external_node_fs_namespaceObject.readSync)(fd, buffer, length, buffer.length - length, null);
            if (n === 0)
                break;
            length += n;
            if (length === buffer.length)
                throw new TreeFileError(file, `grew while it was read (past ${stat.size} bytes): it is not read`);
        }
        return buffer.subarray(0, length);
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}

;// CONCATENATED MODULE: ./src/ralph/validate.ts
// Validating a ralph's frontmatter with the reference's rules and messages (cli._build_run_config), in its
// order, so that the first problem we report is the error ralphify would report. Our own keys (checks,
// checks_parallel, completion_tag, guardrails, presets, setup, verify) are checked last: a ralph the reference accepts fails here only because of them.















/** The reference's default command timeout, in seconds. */
const DEFAULT_COMMAND_TIMEOUT = 60;
/** Our default check timeout, in seconds. */
const DEFAULT_CHECK_TIMEOUT = 600;
/**
 * Reads and validates RALPH.md (or the RALPH.md inside a folder). Throws RalphError with the first problem,
 * its message verbatim as the reference prints it, and every problem found in `problems`.
 */
function loadRalph(file, opts) {
    const { ralph, problems, fatal } = inspectRalph(file, opts);
    if (fatal)
        throw fatal;
    if (!ralph) {
        const first = problems[0];
        throw new RalphError(first.message, first.exitCode, problems);
    }
    return ralph;
}
/** Every problem in the ralph, first the one the reference would report; [] when it is valid. */
function validateRalph(file, opts) {
    return inspectRalph(file, opts).problems;
}
/** The problems (as validateRalph) and the warnings: what `validate` prints. */
function lintRalph(file, opts) {
    const { problems, warnings } = inspectRalph(file, opts);
    return { problems, warnings: warnings ?? [] };
}
/** Every key a runtime reads: ralphify's, then ours. */
const KNOWN_KEYS = [
    'agent',
    'commands',
    'args',
    'credit',
    'checks',
    'checks_parallel',
    'completion_tag',
    'guardrails',
    'presets',
    'protected',
    'setup',
    'verify'
];
/** Args the action fills for a run on an issue, whether the ralph declares them or not. */
const ACTION_ARGS = ['task', 'task_file'];
/** Keys no runtime reads (`chek:` leaves a ralph without gates): one warning each, with the key meant. */
function unknownKeys(file, fm, positions) {
    const found = [];
    for (const key of fm.keys()) {
        const name = String(key);
        if (KNOWN_KEYS.includes(name))
            continue;
        const meant = closest(name, KNOWN_KEYS, Math.min(2, Math.max(1, name.length - 2)));
        found.push({
            file,
            ...positions.entry(fm, key).key,
            exitCode: 1,
            rule: 'unknown-key',
            message: `Unknown frontmatter key '${name}'${meant ? `: did you mean '${meant}'?` : ''} No runtime reads it, so it changes nothing.`
        });
    }
    return found;
}
/**
 * `{{ commands.X }}` with no command X, and `{{ args.X }}` with X not among the declared args: each renders
 * as nothing. Args are checked only when the ralph declares them (else any --X fills one); placeholders in
 * HTML comments are dropped before rendering, so they do not count.
 */
function namingNothing(file, split, commands, declared) {
    const body = split.body;
    const comments = [...body.matchAll(/<!--[\s\S]*?-->/g)].map(m => [m.index, m.index + m[0].length]);
    const found = [];
    for (const match of body.matchAll(render_PLACEHOLDER_RE)) {
        const [, kind, name] = match;
        if (comments.some(([from, to]) => match.index >= from && match.index < to))
            continue;
        const known = kind === 'commands'
            ? commands.map(c => c.name)
            : kind === 'args' && declared !== null
                ? [...declared, ...ACTION_ARGS]
                : undefined;
        if (!known || known.includes(name))
            continue;
        const before = body.slice(0, match.index);
        const line = split.bodyStartLine + (before.match(/\n/g)?.length ?? 0);
        const column = match.index - before.lastIndexOf('\n');
        const meant = closest(name, known);
        found.push({
            file,
            line,
            column,
            exitCode: 1,
            rule: 'names-nothing',
            message: `${match[0]} names no ${kind === 'commands' ? 'command' : 'declared arg'}${meant ? ` (did you mean ${kind}.${meant}?)` : ''}, so it renders as nothing.`
        });
    }
    return found;
}
function inspectRalph(fileArg, opts) {
    let file = fileArg;
    if (opts.text === undefined && validate_isDirectory(external_node_path_default().resolve(opts.cwd, file)))
        file = external_node_path_default().join(file, resolve_RALPH_MARKER);
    const absolute = external_node_path_default().resolve(opts.cwd, file);
    let text;
    try {
        text = opts.text ?? readUtf8(absolute, opts.noLinks === true);
    }
    catch (error) {
        const fatal = error instanceof RalphError ? error : new RalphError(String(error));
        return { problems: fatal.problems.length ? fatal.problems : [problemOf(file, fatal)], fatal };
    }
    let fm;
    let positions;
    let split;
    try {
        ;
        ({ data: fm, positions, split } = readFrontmatter(file, text));
    }
    catch (error) {
        if (!(error instanceof RalphError))
            throw error;
        return { problems: error.problems.length ? error.problems : [problemOf(file, error)], fatal: error };
    }
    const problems = [];
    const report = (message, pos, exitCode = 1) => {
        problems.push({ file, ...pos, message, exitCode });
    };
    const where = (dict, key) => {
        const entry = positions.entry(dict, key);
        return entry.value ?? entry.key;
    };
    // agent
    const rawAgent = field(fm, 'agent');
    let agentArgv = [];
    if (!isNonEmptyString(rawAgent)) {
        // The reference's words, then, when there is no frontmatter at all, what one looks like.
        const none = split.yaml === null;
        report(`Missing or empty 'agent' field in ${resolve_RALPH_MARKER} frontmatter.` +
            (none
                ? ` The file has no frontmatter: start it with a '---' line, then 'agent: <command>', then '---'.`
                : ''), where(fm, 'agent'));
    }
    else {
        try {
            agentArgv = shlex_shlexSplit(rawAgent);
            const missing = opts.skipAgentLookup
                ? undefined
                : missingAgentProgram(agentArgv, opts.cwd, (opts.env ?? process.env).PATH);
            if (missing)
                report(missing, where(fm, 'agent'));
        }
        catch (error) {
            if (!(error instanceof ShlexError))
                throw error;
            report(`Malformed 'agent' field in ${resolve_RALPH_MARKER} frontmatter: ${error.message}`, where(fm, 'agent'));
        }
    }
    // commands
    const commands = validateRunList(fm, 'commands', 'Command', DEFAULT_COMMAND_TIMEOUT, positions, report, {
        notAList: `'commands' must be a list of {name, run} mappings.`,
        missingFields: `Each command must have 'name' and 'run' fields.`,
        duplicate: name => `Duplicate command name '${name}'.`,
        badTimeout: (name, value) => `Command '${name}' has invalid timeout: ${pyRepr(value)}. Must be a positive number.`
    });
    // Valid, as in the reference, but unsafe: an arg placeholder inside a larger word of a command.
    const warnings = [];
    const rawCommands = field(fm, 'commands');
    for (const item of Array.isArray(rawCommands) ? rawCommands : []) {
        if (!(item instanceof Map))
            continue;
        const run = item.get('run');
        if (typeof run !== 'string')
            continue;
        for (const arg of argsInsideWords(run)) {
            const pos = positions.entry(item, 'run');
            warnings.push({
                file,
                ...(pos.value ?? pos.key),
                exitCode: 1,
                rule: 'arg-in-word',
                message: `Command '${String(item.get('name'))}' puts ${arg.placeholder} inside a larger word of its run, ` +
                    `where a value with quotes can change how the command splits. Make it a word of its own, or read ` +
                    `$${argEnvName(arg.name)} in a script.`
            });
        }
    }
    // args
    const rawArgs = field(fm, 'args');
    let declared = null;
    let argsValid = true;
    if (rawArgs !== null) {
        argsValid = false;
        if (!Array.isArray(rawArgs)) {
            report(`'args' must be a list of strings.`, where(fm, 'args'));
        }
        else if (!rawArgs.every(item => typeof item === 'string')) {
            const index = rawArgs.findIndex(item => typeof item !== 'string');
            report(`'args' items must be strings, got non-string value.`, positions.item(rawArgs, index));
        }
        else {
            const before = problems.length;
            checkNames(rawArgs, 'Arg', index => positions.item(rawArgs, index), report);
            argsValid = problems.length === before;
            declared = rawArgs;
        }
    }
    // user args: the reference parses them after `args` and before `credit`
    let argValues = Object.create(null);
    if (argsValid && opts.userArgs && opts.userArgs.length > 0) {
        try {
            argValues = parseUserArgs(opts.userArgs, declared ?? []);
        }
        catch (error) {
            if (!(error instanceof RalphError))
                throw error;
            report(error.message, undefined, error.exitCode);
        }
    }
    // credit
    const rawCredit = field(fm, 'credit');
    let credit = true;
    if (rawCredit !== null) {
        if (typeof rawCredit !== 'boolean') {
            report(`'credit' must be true or false, got ${pyRepr(rawCredit)}.`, where(fm, 'credit'));
        }
        else {
            credit = rawCredit;
        }
    }
    // ours: checks
    const checks = validateRunList(fm, 'checks', 'Check', DEFAULT_CHECK_TIMEOUT, positions, report, {
        notAList: `'checks' must be a list of {name, run} mappings, e.g. checks: [{name: tests, run: npm test}].`,
        missingFields: `Each check must have 'name' and 'run' fields, e.g. {name: tests, run: npm test}.`,
        duplicate: name => `Duplicate check name '${name}'. Give each check its own name.`,
        badTimeout: (name, value) => `Check '${name}' has invalid timeout: ${pyRepr(value)}. Must be a positive number of seconds, e.g. timeout: 600.`
    });
    // ours: true or false
    const flag = (key, example) => {
        const raw = field(fm, key);
        if (raw === null || typeof raw === 'boolean')
            return raw ?? undefined;
        report(`'${key}' must be true or false, got ${pyRepr(raw)}. Example: ${example}`, where(fm, key));
        return undefined;
    };
    const checksParallel = flag('checks_parallel', 'checks_parallel: true (the checks run together; they must not share a build folder)');
    // ours: completion_tag
    const rawTag = field(fm, 'completion_tag');
    let completionTag;
    if (rawTag !== null) {
        if (!isNonEmptyString(rawTag) || /[\n\r]/.test(rawTag)) {
            report(`'completion_tag' must be a non-empty string on one line, got ${pyRepr(rawTag)}. ` +
                `Example: completion_tag: COMPLETE`, where(fm, 'completion_tag'));
        }
        else {
            completionTag = rawTag;
        }
    }
    // ours: guardrails
    const rawGuardrails = field(fm, 'guardrails');
    let guardrails;
    if (rawGuardrails !== null) {
        if (!isNonEmptyString(rawGuardrails)) {
            report(`'guardrails' must be the path of a file (relative to the project root), got ${pyRepr(rawGuardrails)}. ` +
                `Example: guardrails: .ralph/guardrails.md`, where(fm, 'guardrails'));
        }
        else {
            guardrails = rawGuardrails;
        }
    }
    // ours: presets
    const presets = flag('presets', 'presets: false (run the agent exactly as written)');
    // ours: protected (auto, none, or globs)
    const rawProtected = field(fm, 'protected');
    let protectedPaths;
    if (rawProtected !== null) {
        const words = typeof rawProtected === 'string' ? [rawProtected] : rawProtected;
        const parsed = Array.isArray(words) && words.length > 0 && words.every(isNonEmptyString)
            ? parseProtectSetting(words)
            : { problem: `it must be auto, none or a list of globs, got ${pyRepr(rawProtected)}` };
        if ('problem' in parsed)
            report(`'protected': ${parsed.problem}. Example: protected: [auto, docs/spec/**]`, where(fm, 'protected'));
        else
            protectedPaths = parsed;
    }
    // ours: setup (one command, or a list of them) and verify
    const rawSetup = field(fm, 'setup');
    let setup;
    if (rawSetup !== null) {
        const list = typeof rawSetup === 'string' ? [rawSetup] : rawSetup;
        if (!Array.isArray(list) || list.length === 0 || !list.every(isNonEmptyString))
            report(`'setup' must be a command or a list of commands, got ${pyRepr(rawSetup)}. Example: setup: npm ci`, where(fm, 'setup'));
        else
            setup = list;
    }
    const rawVerify = field(fm, 'verify');
    let verify;
    if (rawVerify !== null) {
        if (rawVerify !== 'clean' && rawVerify !== 'tree')
            report(`'verify' must be clean or tree, got ${pyRepr(rawVerify)}. Example: verify: clean (the gates pass again on a clean checkout of the commit before it is delivered)`, where(fm, 'verify'));
        else
            verify = rawVerify;
    }
    if (problems.length === 0 && opts.checkPrograms) {
        const env = opts.env ?? process.env;
        const dirs = { ralphDir: validate_realPath(external_node_path_default().dirname(absolute)), projectRoot: opts.cwd };
        // Every item is valid here (no problems so far), so the lists line up with the frontmatter's.
        const runPosition = (key, index) => {
            const item = fm.get(key)[index];
            return item instanceof Map
                ? (positions.entry(item, 'run').value ?? positions.item(fm.get(key), index))
                : undefined;
        };
        commands.forEach((command, index) => {
            const missing = missingCommandProgram(command, argValues, dirs, env.PATH);
            if (missing)
                report(missing, runPosition('commands', index));
        });
        checks.forEach((check, index) => {
            const missing = missingGateProgram(check, opts.cwd, env.PATH);
            if (missing)
                report(missing, runPosition('checks', index));
        });
    }
    warnings.push(...unknownKeys(file, fm, positions), ...namingNothing(file, split, commands, declared));
    if (problems.length > 0)
        return { problems, warnings };
    // The reference resolves the folder and the file separately: a symlinked RALPH.md keeps its folder's name.
    const dir = validate_realPath(external_node_path_default().dirname(absolute));
    const ralph = {
        file: validate_realPath(absolute),
        dir,
        name: external_node_path_default().basename(dir),
        agent: rawAgent,
        agentArgv,
        commands,
        args: declared ?? [],
        credit,
        checks,
        argValues,
        warnings
    };
    if (completionTag !== undefined)
        ralph.completionTag = completionTag;
    if (guardrails !== undefined)
        ralph.guardrails = guardrails;
    if (presets !== undefined)
        ralph.presets = presets;
    if (protectedPaths !== undefined)
        ralph.protected = protectedPaths;
    if (checksParallel !== undefined)
        ralph.checksParallel = checksParallel;
    if (setup !== undefined)
        ralph.setup = setup;
    if (verify !== undefined)
        ralph.verify = verify;
    if (rawCredit !== null)
        ralph.creditWritten = true;
    return { ralph, problems, warnings };
}
// `commands:` (the reference's rules) and `checks:` (ours, the same rules): a list of {name, run, timeout?}.
function validateRunList(fm, key, label, defaultTimeout, positions, report, messages) {
    const raw = field(fm, key);
    if (raw === null)
        return [];
    if (!Array.isArray(raw)) {
        const entry = positions.entry(fm, key);
        report(messages.notAList, entry.value ?? entry.key);
        return [];
    }
    const result = [];
    const seen = new Set();
    raw.forEach((item, index) => {
        const itemPos = positions.item(raw, index);
        if (!(item instanceof Map) || !item.has('name') || !item.has('run')) {
            report(messages.missingFields, itemPos);
            return;
        }
        const at = (k) => positions.entry(item, k).value ?? itemPos;
        const name = item.get('name');
        const run = item.get('run');
        const nameOk = isNonEmptyString(name);
        const runOk = isNonEmptyString(run);
        if (!nameOk)
            report(`${label} 'name' must be a non-empty string.`, at('name'));
        if (!runOk)
            report(`${label} 'run' must be a non-empty string.`, at('run'));
        if (!nameOk)
            return;
        let ok = runOk;
        if (!NAME_RE.test(name)) {
            report(`${label} name '${name}' contains invalid characters. ${VALID_NAME_CHARS_MSG}`, at('name'));
            ok = false;
        }
        else if (seen.has(name)) {
            report(messages.duplicate(name), at('name'));
            ok = false;
        }
        else {
            seen.add(name);
        }
        const rawTimeout = item.has('timeout') ? item.get('timeout') : null;
        let timeout = defaultTimeout;
        if (rawTimeout !== null) {
            if (!isValidTimeout(rawTimeout)) {
                report(messages.badTimeout(name, rawTimeout), at('timeout'));
                ok = false;
            }
            else {
                timeout = Number(rawTimeout);
            }
        }
        if (ok)
            result.push({ name, run: run, timeout });
    });
    return result;
}
function checkNames(names, label, at, report) {
    const seen = new Set();
    names.forEach((name, index) => {
        if (!NAME_RE.test(name)) {
            report(`${label} name '${name}' contains invalid characters. ${VALID_NAME_CHARS_MSG}`, at(index));
        }
        else if (seen.has(name)) {
            report(`Duplicate ${label.toLowerCase()} name '${name}'.`, at(index));
        }
        else {
            seen.add(name);
        }
    });
}
/** `fm.get(key)`: absent and null are the same to the reference. */
function field(dict, key) {
    return dict.has(key) ? dict.get(key) : null;
}
/** The reference's _is_nonempty_string: a str with something left after Python's strip(). */
function isNonEmptyString(value) {
    return typeof value === 'string' && pyStrip(value) !== '';
}
/** The reference's _is_valid_timeout: an int or float (not a bool), finite and positive. */
function isValidTimeout(value) {
    if (typeof value === 'bigint')
        return value > 0n;
    if (typeof value === 'number')
        return Number.isFinite(value) && value > 0;
    return false;
}
function readUtf8(file, noLinks) {
    let bytes;
    try {
        bytes = noLinks ? readRegularFile(file) : external_node_fs_default().readFileSync(file);
    }
    catch (error) {
        const code = error.code;
        if (code === 'ENOENT')
            throw new RalphError(`${resolve_RALPH_MARKER} not found at '${file}'.`);
        if (error instanceof TreeFileError)
            throw new RalphError(`${error.message}. Make it a regular file of the project.`);
        throw new RalphError(`Cannot read ${file}: ${fileProblem(error)}.`);
    }
    try {
        // Strict like Python's read_text(encoding="utf-8"); the BOM is kept here and dropped by the splitter.
        return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    }
    catch {
        throw new RalphError(`${file}: ${resolve_RALPH_MARKER} is not valid UTF-8 text. Save it as UTF-8.`);
    }
}
function problemOf(file, error) {
    return { file, message: error.message, exitCode: error.exitCode };
}
function validate_isDirectory(p) {
    try {
        return external_node_fs_default().statSync(p).isDirectory();
    }
    catch {
        return false;
    }
}
function validate_realPath(p) {
    try {
        return external_node_fs_default().realpathSync(p);
    }
    catch {
        return p;
    }
}

;// CONCATENATED MODULE: ./src/ralph/index.ts
// The RALPH.md format engine: parse, validate, render. Nothing here spawns a process or talks to GitHub.

















;// CONCATENATED MODULE: ./src/loop/breaker.ts
// The stagnation breaker: a loop that makes no progress, keeps failing the same way, whose agent keeps
// failing, or whose agent keeps being denied the tools it needs is stopped (`circuit_open`) instead of
// burning time and money.
const DEFAULT_PERMISSION_DENIALS = 2;
const DEFAULT_BREAKER = { noProgress: 3, sameFailure: 3, agentFailures: 3 };
class StagnationBreaker {
    thresholds;
    noProgress = 0;
    sameFailure = 0;
    agentFailures = 0;
    lastFingerprint = '';
    denials = 0;
    deniedTools = new Set();
    constructor(thresholds) {
        this.thresholds = thresholds;
    }
    /** Counts one iteration; answers the rule that opens the circuit, if one does. */
    record(signals) {
        this.agentFailures = signals.agentFailed ? this.agentFailures + 1 : 0;
        if (signals.progressed === undefined)
            this.noProgress = 0;
        else
            this.noProgress = signals.progressed ? 0 : this.noProgress + 1;
        const fp = signals.failureFingerprint;
        this.sameFailure = fp === '' ? 0 : fp === this.lastFingerprint ? this.sameFailure + 1 : 1;
        this.lastFingerprint = fp;
        const denied = signals.deniedTools ?? [];
        if (denied.length === 0) {
            this.denials = 0;
            this.deniedTools.clear();
        }
        else {
            this.denials++;
            denied.forEach(tool => this.deniedTools.add(tool));
        }
        const { agentFailures, sameFailure, noProgress } = this.thresholds;
        const permissionDenials = this.thresholds.permissionDenials ?? DEFAULT_PERMISSION_DENIALS;
        // Denied tools first: no other rule says what the user must change (the agent's permissions).
        if (permissionDenials > 0 && this.denials >= permissionDenials)
            return {
                rule: 'permission_denials',
                count: this.denials,
                message: `the agent was denied permission in ${this.denials} consecutive iterations ` +
                    `(tools: ${[...this.deniedTools].join(', ')}); allow them in the agent's command or its settings`
            };
        // When several rules trip together the most specific one is named.
        if (agentFailures > 0 && this.agentFailures >= agentFailures)
            return {
                rule: 'agent_failures',
                count: this.agentFailures,
                message: `the agent failed in ${this.agentFailures} consecutive iterations`
            };
        if (sameFailure > 0 && this.sameFailure >= sameFailure)
            return {
                rule: 'same_failure',
                count: this.sameFailure,
                message: `the checks failed the same way (fingerprint ${fp}) in ${this.sameFailure} consecutive iterations`
            };
        if (noProgress > 0 && this.noProgress >= noProgress)
            return {
                rule: 'no_progress',
                count: this.noProgress,
                message: `the work tree did not change in ${this.noProgress} consecutive iterations`
            };
        return undefined;
    }
}

;// CONCATENATED MODULE: ./src/agents/cost-meter.ts
const RANK = { metered: 0, reported: 1, estimated: 2, unknown: 3 };
/** Turns what a stream said into a priced Usage: reported dollars first, then the price table. */
function priceUsage(report, price) {
    const tokens = {
        input: report?.input ?? 0,
        output: report?.output ?? 0,
        cache_read: report?.cache_read ?? 0,
        cache_write: report?.cache_write ?? 0
    };
    if (report?.reportedUsd !== undefined)
        return { ...tokens, cost_usd: report.reportedUsd, cost_source: 'reported' };
    const estimate = report && price ? price(report) : undefined;
    if (estimate !== undefined)
        return { ...tokens, cost_usd: estimate, cost_source: 'estimated' };
    return { ...tokens, cost_usd: 0, cost_source: 'unknown' };
}
/** The meter the engine uses unless a port supplies one. `price` is the agents' price table (optional). */
function createCostMeter(price) {
    let spent = 0;
    let running;
    let lastReport;
    let worst;
    const listeners = new Set();
    const changed = () => listeners.forEach(listener => listener());
    return {
        spentUsd: () => spent,
        runningUsd: () => running?.cost_usd ?? 0,
        source: () => worst ?? 'unknown',
        beginRun() {
            running = priceUsage(undefined, price);
            lastReport = undefined;
        },
        observe(usage) {
            lastReport = usage;
            running = priceUsage(usage, price);
            changed();
        },
        endRun(final) {
            const usage = priceUsage(final ?? lastReport, price);
            spent += usage.cost_usd;
            worst = worst === undefined || RANK[usage.cost_source] > RANK[worst] ? usage.cost_source : worst;
            running = undefined;
            lastReport = undefined;
            changed();
            return usage;
        },
        onChange(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
        }
    };
}

;// CONCATENATED MODULE: external "node:crypto"
const external_node_crypto_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:crypto");
;// CONCATENATED MODULE: external "node:http"
const external_node_http_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:http");
var external_node_http_default = /*#__PURE__*/__nccwpck_require__.n(external_node_http_namespaceObject);
;// CONCATENATED MODULE: external "node:https"
const external_node_https_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:https");
var external_node_https_default = /*#__PURE__*/__nccwpck_require__.n(external_node_https_namespaceObject);
;// CONCATENATED MODULE: external "node:net"
const external_node_net_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:net");
var external_node_net_default = /*#__PURE__*/__nccwpck_require__.n(external_node_net_namespaceObject);
;// CONCATENATED MODULE: external "node:tls"
const external_node_tls_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:tls");
var external_node_tls_default = /*#__PURE__*/__nccwpck_require__.n(external_node_tls_namespaceObject);
;// CONCATENATED MODULE: external "node:zlib"
const external_node_zlib_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:zlib");
var external_node_zlib_default = /*#__PURE__*/__nccwpck_require__.n(external_node_zlib_namespaceObject);
;// CONCATENATED MODULE: ./src/proxy/wire.ts
// Reading token usage from a model API's response as it streams by, for the four wires the agent CLIs speak.
// Each reader is fed the JSON of one server-sent event (or a whole JSON body) and keeps the request's
// cumulative usage; the proxy prices it after every event, so a budget can be crossed mid-stream. Also, per
// wire, which endpoints the proxy forwards at all and what a request may cost at worst, read from its body.

const wire_num = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const obj = (value) => value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
/** OpenAI's usage (both its wires, under their own names): cached tokens are counted inside the input. */
function openAiUsage(usage, input, output, details) {
    // A UsageReport's input is the uncached part.
    const cached = wire_num(obj(usage[details])?.cached_tokens);
    return { input: wire_num(usage[input]) - cached, output: wire_num(usage[output]), cache_read: cached, cache_write: 0 };
}
/** One request's usage as its response revealed it so far (cumulative). */
class WireUsage {
    wire;
    usage = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
    /** The response carried usage (false: nothing to price yet). */
    seen = false;
    /** Dollars billed per use beside the tokens (Anthropic's and OpenAI's web searches), so far. */
    perUseUsd = 0;
    /** The Responses web search calls seen so far (by item id or output index). */
    searchCalls = new Set();
    constructor(wire, model) {
        this.wire = wire;
        if (model)
            this.usage.model = model;
    }
    /** Reads one event (or a whole body); answers true when the usage changed. */
    read(event) {
        // A whole body may be a JSON array of chunks (Gemini's streamGenerateContent without alt=sse).
        if (Array.isArray(event))
            return event.reduce((changed, item) => this.read(item) || changed, false);
        const data = obj(event);
        if (!data)
            return false;
        switch (this.wire) {
            case 'anthropic-messages':
                return this.anthropic(data);
            case 'openai-responses':
                return this.responses(data);
            case 'openai-chat':
                return this.chat(data);
            case 'gemini':
                return this.gemini(data);
        }
    }
    set(next, model) {
        if (typeof model === 'string' && model)
            this.usage.model = model;
        const before = JSON.stringify(this.usage);
        Object.assign(this.usage, next);
        this.seen = true;
        return JSON.stringify(this.usage) !== before;
    }
    // message_start carries the input (and a first output count); message_delta the output so far.
    // A whole (non-streamed) body is a message with its usage.
    anthropic(data) {
        const message = data.type === 'message_start' ? obj(data.message) : data.type === 'message' ? data : undefined;
        const usage = obj(message ? message.usage : data.type === 'message_delta' ? data.usage : undefined);
        if (!usage)
            return false;
        const u = this.usage;
        // The web search server tool is billed per search, not in tokens.
        const searches = wire_num(obj(usage.server_tool_use)?.web_search_requests);
        const perUse = Math.max(this.perUseUsd, searches * ANTHROPIC_WEB_SEARCH_USD);
        const searched = perUse !== this.perUseUsd;
        this.perUseUsd = perUse;
        const changed = this.set({
            input: 'input_tokens' in usage ? wire_num(usage.input_tokens) : u.input,
            output: 'output_tokens' in usage ? wire_num(usage.output_tokens) : u.output,
            cache_read: 'cache_read_input_tokens' in usage ? wire_num(usage.cache_read_input_tokens) : u.cache_read,
            cache_write: 'cache_creation_input_tokens' in usage ? wire_num(usage.cache_creation_input_tokens) : u.cache_write
        }, message?.model);
        return changed || searched;
    }
    // response.completed (and .incomplete / .failed) carry the response with its usage; a whole body is it.
    // A web search call is billed per call: counted as each output item shows, and in the final output.
    responses(data) {
        const response = typeof data.type === 'string' && data.type.startsWith('response.') ? obj(data.response) : data;
        const searched = this.countSearches(Array.isArray(response?.output) ? response.output : obj(data.item) ? [data.item] : [], data.output_index);
        const usage = obj(response?.usage);
        if (!response || !usage)
            return searched;
        const changed = this.set(openAiUsage(usage, 'input_tokens', 'output_tokens', 'input_tokens_details'), response.model);
        return changed || searched;
    }
    countSearches(items, index) {
        const before = this.searchCalls.size;
        items.forEach((item, at) => {
            const call = obj(item);
            if (call?.type !== 'web_search_call')
                return;
            this.searchCalls.add(typeof call.id === 'string' ? call.id : `#${wire_num(index) || at}`);
        });
        if (this.searchCalls.size === before)
            return false;
        this.perUseUsd = Math.max(this.perUseUsd, this.searchCalls.size * OPENAI_WEB_SEARCH_USD);
        return true;
    }
    // The usage chunk (stream_options.include_usage), or a whole body's usage.
    chat(data) {
        const usage = obj(data.usage);
        if (!usage)
            return false;
        return this.set(openAiUsage(usage, 'prompt_tokens', 'completion_tokens', 'prompt_tokens_details'), data.model);
    }
    // usageMetadata on a chunk: the prompt counts cached content; thoughts are billed as output.
    gemini(data) {
        const usage = obj(data.usageMetadata);
        if (!usage)
            return false;
        const cached = wire_num(usage.cachedContentTokenCount);
        return this.set({
            input: wire_num(usage.promptTokenCount) - cached,
            output: wire_num(usage.candidatesTokenCount) + wire_num(usage.thoughtsTokenCount),
            cache_read: cached,
            cache_write: 0
        }, data.modelVersion);
    }
}
/**
 * Splits a server-sent event stream into the JSON of its `data:` fields, across chunk boundaries. Bytes are
 * only read here: the proxy forwards them untouched.
 */
class SseReader {
    onEvent;
    pending = '';
    data = [];
    decoder = new TextDecoder();
    constructor(onEvent) {
        this.onEvent = onEvent;
    }
    push(chunk) {
        this.pending += this.decoder.decode(chunk, { stream: true });
        let newline;
        while ((newline = this.pending.indexOf('\n')) >= 0) {
            const line = this.pending.slice(0, newline).replace(/\r$/, '');
            this.pending = this.pending.slice(newline + 1);
            this.line(line);
        }
        // A line that never ends (a hostile or broken upstream) must not grow without bound.
        if (this.pending.length > MAX_LINE)
            this.pending = '';
    }
    end() {
        if (this.pending)
            this.line(this.pending);
        this.pending = '';
        this.line('');
    }
    line(line) {
        if (line === '') {
            if (this.data.length === 0)
                return;
            const text = this.data.join('\n');
            this.data = [];
            try {
                this.onEvent(JSON.parse(text));
            }
            catch {
                // not JSON ([DONE], a comment): nothing to meter
            }
            return;
        }
        if (line.startsWith('data:'))
            this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
}
/** A usage event is small; a longer line is content, and is not kept whole. */
const MAX_LINE = 4 * 1024 * 1024;
const MODEL = { kind: 'model' };
const FREE = { kind: 'free' };
const refused = (why) => ({ kind: 'refused', why });
const BATCH = 'a batch is billed later, out of band, so the meter never sees its cost';
const FILES = 'a stored file is billed as input by every request that names it, and the pre-authorisation sees only its name';
const CACHED = 'stored content is billed by the hour it is kept, outside any request the meter reads';
/** A model listing (`/v1/models`, `/v1/models/<id>`): free, and some CLIs check it. */
const MODELS_LIST = /^\/v1(?:beta|alpha)?\/models(?:\/[^/:]+)?$/;
/**
 * Which endpoints of `wire` the proxy forwards: the model calls its meter prices, and, by name, the few free
 * ones the CLIs call. Everything else is refused, with why: a path is matched exactly (no prefix, no case).
 */
function endpointOf(wire, method, path) {
    // Counting and listing cost nothing on every vendor's API (claude counts tokens; CLIs list models).
    if (method === 'GET' && MODELS_LIST.test(path))
        return FREE;
    // A reachability probe of the base URL: no model runs.
    if ((method === 'HEAD' || method === 'GET') && path === '/')
        return FREE;
    if (/\/batches\b|:batch|batchGenerateContent|:asyncBatch/i.test(path))
        return refused(BATCH);
    if (/^\/(?:upload\/)?v1[a-z]*\/files\b/i.test(path))
        return refused(FILES);
    if (/cachedContents/i.test(path))
        return refused(CACHED);
    switch (wire) {
        case 'anthropic-messages':
            if (method === 'POST' && path === '/v1/messages')
                return MODEL;
            if (method === 'POST' && path === '/v1/messages/count_tokens')
                return FREE;
            break;
        case 'openai-responses':
            if (method === 'POST' && path === '/v1/responses')
                return MODEL;
            if (method === 'POST' && path === '/v1/responses/input_tokens')
                return FREE;
            if (/^\/v1\/responses\//.test(path))
                return refused('a stored or background response is billed outside the stream the meter reads (only POST /v1/responses is forwarded)');
            break;
        case 'openai-chat':
            if (method === 'POST' && path === '/v1/chat/completions')
                return MODEL;
            break;
        case 'gemini': {
            const call = /^\/v1(?:beta|alpha)?\/models\/[^/:]+:(\w+)$/.exec(path)?.[1];
            if (method === 'POST' && (call === 'generateContent' || call === 'streamGenerateContent'))
                return MODEL;
            if (method === 'POST' && call === 'countTokens')
                return FREE;
            break;
        }
    }
    return refused(`the meter cannot price it: the proxy forwards only ${MODEL_CALLS[wire]} and free calls`);
}
const MODEL_CALLS = {
    'anthropic-messages': 'POST /v1/messages',
    'openai-responses': 'POST /v1/responses',
    'openai-chat': 'POST /v1/chat/completions',
    gemini: 'generateContent and streamGenerateContent'
};
/** A model call the meter could not price though its endpoint is one: its name in the record and why. */
function bodyRefusal(wire, body) {
    // A background response runs on after the request returns, billed where the meter never looks.
    if (wire === 'openai-responses' && obj(body)?.background === true)
        return {
            name: 'background: true',
            why: 'a background response is billed when it finishes, after the answer the meter reads'
        };
    // OpenAI's priority processing costs more than the table's standard rates: the meter would price it low.
    if ((wire === 'openai-responses' || wire === 'openai-chat') && obj(body)?.service_tier === 'priority')
        return {
            name: 'service_tier: priority',
            why: "priority processing is billed above the price table's standard rates"
        };
    const json = obj(body) ?? {};
    if (wire === 'openai-responses') {
        // A small body that names stored input: the whole stored conversation is billed as this request's input.
        for (const field of ['previous_response_id', 'conversation', 'prompt'])
            if (json[field] !== undefined && json[field] !== null && json[field] !== '')
                return {
                    name: field,
                    why: `${field} bills stored input (${STORED_INPUT[field]}) the body does not hold, so its worst case cannot be read from it; send the whole input instead`
                };
        const fee = toolTypes(json.tools).find(type => PER_USE_TOOLS.includes(type));
        if (fee)
            return {
                name: `tools: ${fee}`,
                why: 'the hosted tool is billed per call or per session beside the tokens, at a price the meter does not know'
            };
    }
    // Anthropic's code execution is billed per container-hour beside the tokens (web search is metered, its
    // requests counted in the usage; web fetch costs tokens only).
    if (wire === 'anthropic-messages') {
        const container = toolTypes(json.tools).find(type => type.startsWith('code_execution'));
        if (container)
            return {
                name: `tools: ${container}`,
                why: 'code execution is billed per container-hour beside the tokens, at a price the meter does not know'
            };
    }
    // Chat completions' search models bill a fee per search.
    if (wire === 'openai-chat' && json.web_search_options !== undefined)
        return {
            name: 'web_search_options',
            why: 'a web search is billed per call beside the tokens, at a price the meter does not know'
        };
    if (wire === 'gemini') {
        const grounding = (Array.isArray(json.tools) ? json.tools : [])
            .flatMap(tool => Object.keys(obj(tool) ?? {}))
            .find(key => GROUNDING_TOOLS.includes(key));
        if (grounding)
            return {
                name: `tools: ${grounding}`,
                why: 'grounding is billed per grounded prompt or per search query beside the tokens, at a price the meter does not know'
            };
    }
    return undefined;
}
const STORED_INPUT = {
    previous_response_id: 'the earlier response and everything before it',
    conversation: "the conversation's items",
    prompt: 'the stored prompt'
};
/** Responses hosted tools with a fee per call or per container session (web search is priced instead). */
const PER_USE_TOOLS = ['file_search', 'code_interpreter', 'image_generation'];
/** Gemini's grounding tools, billed per grounded prompt (2.5) or per search query (3) beside the tokens. */
const GROUNDING_TOOLS = [
    'googleSearch',
    'google_search',
    'googleSearchRetrieval',
    'google_search_retrieval',
    'googleMaps',
    'google_maps',
    'enterpriseWebSearch',
    'enterprise_web_search',
    'retrieval'
];
function toolTypes(tools) {
    return (Array.isArray(tools) ? tools : []).flatMap(tool => {
        const type = obj(tool)?.type;
        return typeof type === 'string' ? [type] : [];
    });
}
/**
 * A request body's bytes per input token, at least: JSON text runs 3 to 4 bytes a token, so 3 errs high. What
 * a body holds beyond that (an image, a crafted string) is caught when the answer reports it.
 */
const BYTES_PER_INPUT_TOKEN = 3;
/**
 * The output a request is reserved at, and limited to, when it names no limit (the CLIs' own defaults are 8K to
 * 32K; codex names none): the proxy writes it into the body (withOutputLimit).
 */
const DEFAULT_MAX_OUTPUT_TOKENS = 32_000;
const positive = (value) => typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : undefined;
/** Where a wire's request names its output limit (chat: the first one set, as worstCaseUsage reads it). */
function outputLimit(wire, json) {
    return wire === 'anthropic-messages'
        ? json.max_tokens
        : wire === 'openai-responses'
            ? json.max_output_tokens
            : wire === 'openai-chat'
                ? (json.max_completion_tokens ?? json.max_tokens)
                : obj(json.generationConfig)?.maxOutputTokens;
}
/**
 * The body with the output limit it was reserved at, when it names none the meter can read: without one the
 * API allows the model's whole output (128K tokens for GPT-5), far past what was reserved. Undefined when the
 * body names its own limit (then it goes up untouched).
 */
function withOutputLimit(wire, body) {
    const json = obj(body);
    if (!json || positive(outputLimit(wire, json)) !== undefined)
        return undefined;
    const limit = DEFAULT_MAX_OUTPUT_TOKENS;
    switch (wire) {
        case 'anthropic-messages':
            return { ...json, max_tokens: limit };
        case 'openai-responses':
            return { ...json, max_output_tokens: limit };
        case 'openai-chat': {
            // OpenAI's own models take only max_completion_tokens; other chat servers know max_tokens.
            const { max_tokens: _, max_completion_tokens: __, ...rest } = json;
            const openAi = typeof json.model === 'string' && /^(gpt-|o\d|chatgpt-)/.test(json.model);
            return { ...rest, [openAi ? 'max_completion_tokens' : 'max_tokens']: limit };
        }
        case 'gemini':
            return { ...json, generationConfig: { ...obj(json.generationConfig), maxOutputTokens: limit } };
    }
}
/**
 * The most a model call may use: its body's size as input (none of it cached) and its output limit (times the
 * choices asked for) as output; the model it names, else `pathModel` (Gemini's).
 */
function worstCaseUsage(wire, body, bytes, pathModel) {
    const json = obj(body) ?? {};
    const config = obj(json.generationConfig) ?? {};
    const limit = outputLimit(wire, json);
    const choices = positive(wire === 'openai-chat' ? json.n : wire === 'gemini' ? config.candidateCount : 1);
    // Gemini bills the model its path names (as the meter reads it); a body's `model` must not price it lower.
    const model = wire === 'gemini' && pathModel
        ? pathModel
        : typeof json.model === 'string' && json.model
            ? json.model
            : pathModel;
    return {
        input: Math.ceil(bytes / BYTES_PER_INPUT_TOKEN),
        output: (positive(limit) ?? DEFAULT_MAX_OUTPUT_TOKENS) * (choices ?? 1),
        cache_read: 0,
        cache_write: 0,
        ...(model ? { model } : {})
    };
}
/** Anthropic's web search server tool: $10 per 1,000 searches (platform.claude.com pricing, 2026-11). */
const ANTHROPIC_WEB_SEARCH_USD = 0.01;
/** Searches a web search tool that names no max_uses is reserved for (one request may search many times). */
const DEFAULT_WEB_SEARCHES = 20;
/**
 * OpenAI's web search tool, per call: $25 per 1,000 for web_search_preview on non-reasoning models, $10 for the
 * rest (developers.openai.com/api/docs/pricing, built-in tools); the higher price is kept.
 */
const OPENAI_WEB_SEARCH_USD = 0.025;
/**
 * The most a model call may be billed per use beside its tokens: each Anthropic web search tool's max_uses; for
 * an OpenAI web search tool, the request's max_tool_calls (every hosted tool call a response may make).
 */
function worstPerUseUsd(wire, body) {
    if (wire === 'openai-responses') {
        const json = obj(body) ?? {};
        if (!toolTypes(json.tools).some(type => type.startsWith('web_search')))
            return 0;
        return (positive(json.max_tool_calls) ?? DEFAULT_WEB_SEARCHES) * OPENAI_WEB_SEARCH_USD;
    }
    if (wire !== 'anthropic-messages')
        return 0;
    const tools = obj(body)?.tools;
    if (!Array.isArray(tools))
        return 0;
    return tools
        .map(obj)
        .filter(tool => typeof tool?.type === 'string' && tool.type.startsWith('web_search'))
        .reduce((sum, tool) => sum + (positive(tool?.max_uses) ?? DEFAULT_WEB_SEARCHES) * ANTHROPIC_WEB_SEARCH_USD, 0);
}
/** The most a request body may grow to once decoded: more is refused, never read on trust. */
const MAX_REQUEST_BODY = 64 * 1024 * 1024;
/** A request body as the upstream will read it, or undefined when its encoding is one the proxy cannot read. */
function decodeBody(bytes, encoding) {
    const options = { maxOutputLength: MAX_REQUEST_BODY };
    try {
        switch ((encoding ?? 'identity').trim().toLowerCase()) {
            case 'identity':
            case '':
                return bytes;
            case 'gzip':
            case 'x-gzip':
                return external_node_zlib_default().gunzipSync(bytes, options);
            case 'deflate':
                return external_node_zlib_default().inflateSync(bytes, options);
            case 'br':
                return external_node_zlib_default().brotliDecompressSync(bytes, options);
            default:
                return undefined;
        }
    }
    catch {
        return undefined;
    }
}
/** An error in the API's own shape, so the CLI shows the message: 403 for a refused endpoint, 402 for the budget. */
function apiError(wire, status, message) {
    const budget = status === 402;
    if (wire === 'anthropic-messages')
        return { type: 'error', error: { type: budget ? 'billing_error' : 'permission_error', message } };
    if (wire === 'gemini')
        return { error: { code: status, message, status: budget ? 'RESOURCE_EXHAUSTED' : 'PERMISSION_DENIED' } };
    return {
        error: {
            message,
            type: budget ? 'insufficient_quota' : 'invalid_request_error',
            code: budget ? 'insufficient_quota' : 'endpoint_not_allowed',
            param: null
        }
    };
}

;// CONCATENATED MODULE: ./src/proxy/server.ts
// The model proxy: a loopback HTTP server the agent CLI takes for its model API. It holds the real API key
// (the agent has only a per-run placeholder), forwards each request over HTTPS to the upstream, passes the
// response through as it arrives, and reads the tokens from it on the way, so that every agent's cost is
// metered at the wire and a dollar budget can end a stream in the middle. The cap fails closed: only the
// endpoints the meter can price are forwarded, each model call is pre-authorised at its worst case against
// what is left, and every request in flight is cut once the cap is crossed. It also serves CONNECT for the
// hosts a workflow allows, and names every host and request it refuses.






/** The most distinct refused destinations named in a run's log and record; the rest are counted. */
const MOST_REFUSALS_NAMED = 100;
// Headers of one hop only (RFC 9110 7.6.1).
const HOP_HEADERS = [
    'connection',
    'keep-alive',
    'proxy-connection',
    'proxy-authorization',
    'proxy-authenticate',
    'te',
    'trailer',
    'transfer-encoding',
    'upgrade'
];
// Besides: the proxy names the host and the encoding (identity, to read usage), and only its own key goes up.
const NOT_FORWARDED = new Set([
    ...HOP_HEADERS,
    'host',
    'accept-encoding',
    'authorization',
    'x-api-key',
    'x-goog-api-key',
    'api-key'
]);
const NOT_RETURNED = new Set(HOP_HEADERS);
/** Request bodies held at once (read, waiting or going up): an agent cannot make the proxy's memory its weapon. */
const MAX_HELD_BYTES = 256 * 1024 * 1024;
/** A whole JSON body is read for its usage up to this size; larger ones pass through unmetered. */
const MAX_JSON_BODY = 16 * 1024 * 1024;
/** The key each wire's API expects, as a header. */
function keyHeader(wire, key) {
    if (wire === 'anthropic-messages')
        return { 'x-api-key': key };
    if (wire === 'gemini')
        return { 'x-goog-api-key': key };
    return { authorization: `Bearer ${key}` };
}
/** The key the agent presented, in whichever place its wire puts it. */
function presentedKey(request, url) {
    const header = (name) => {
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
    };
    const bearer = header('authorization')?.replace(/^Bearer\s+/i, '');
    return header('x-api-key') ?? header('x-goog-api-key') ?? bearer ?? url.searchParams.get('key') ?? undefined;
}
/** A refused target the agent wrote that is not a host[:port]: it is named this way, never echoed. */
const UNREADABLE = 'a target with other characters than host:port';
/** The agent's text, kept only when it is a host[:port]: it goes into the log, the job summary and the record. */
const safeTarget = (target) => /^[A-Za-z0-9_.:[\]-]{1,261}$/.test(target) ? target : UNREADABLE;
/** `host:port`, `[v6]:port`: the host in group 1, the port in group 2. */
const HOST_PORT = /^\[?([^\]]+?)\]?:(\d+)$/;
/** Whether `host` matches allowed-hosts (a name, or `*.suffix`), in any case. */
function hostAllowed(host, allowed) {
    const name = host.toLowerCase();
    return allowed.some(pattern => {
        const p = pattern.toLowerCase();
        return p.startsWith('*.') ? name.endsWith(p.slice(1)) : name === p;
    });
}
const header = (request, name) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
};
/** A path of the agent's, kept only in the characters of paths: it goes into the log and the record. */
const safePath = (path) => /^[A-Za-z0-9_.~:/%@-]{1,200}$/.test(path) ? path : 'a path with other characters';
/** The model in a request's path (Gemini: /v1beta/models/<model>:streamGenerateContent). */
function modelInPath(path) {
    return /\/models\/([^/:]+)/.exec(path)?.[1];
}
/** Starts the proxy on 127.0.0.1 (a free port). */
async function startModelProxy(options) {
    const upstream = new URL(options.upstream);
    if (upstream.protocol !== 'https:' && upstream.protocol !== 'http:')
        throw new Error(`The model upstream ${options.upstream} is not an http(s) URL.`);
    const placeholderKey = `ralph-proxy-${(0,external_node_crypto_namespaceObject.randomBytes)(18).toString('hex')}`;
    const requests = [];
    const refused = [];
    const refusedRequests = [];
    const refusedWhy = [];
    const inFlight = new Set();
    const waiting = [];
    let heldBytes = 0;
    let refusedUnnamed = 0;
    const namingRefusals = () => refused.length < MOST_REFUSALS_NAMED;
    const refuse = (host) => {
        if (host !== undefined && refused.includes(host))
            return;
        if (host !== undefined && namingRefusals())
            refused.push(host);
        else
            refusedUnnamed++;
    };
    const agent = upstream.protocol === 'https:'
        ? new (external_node_https_default()).Agent({
            keepAlive: true,
            ...(options.ca ? { ca: [...(external_node_tls_default()).rootCertificates, options.ca] } : {})
        })
        : new (external_node_http_default()).Agent({ keepAlive: true });
    const forward = (request, response) => {
        let url;
        try {
            url = new URL(request.url ?? '/', 'http://proxy.invalid');
        }
        catch {
            // The agent's text: a target no URL parser reads (`http://[x](y)/`) is refused, never thrown.
            refuse(UNREADABLE);
            response.writeHead(400, { 'content-type': 'text/plain' });
            response.end("ralph-action's model proxy cannot read that request's target.\n");
            return;
        }
        if (/^[a-z]+:\/\//i.test(request.url ?? '')) {
            // A plain-HTTP proxy request for another host: never forwarded, only named.
            const host = safeTarget(url.host);
            refuse(host === UNREADABLE ? host : `http://${host}`);
            response.writeHead(403, { 'content-type': 'text/plain' });
            response.end("ralph-action's model proxy does not forward plain HTTP.\n");
            return;
        }
        if (presentedKey(request, url) !== placeholderKey) {
            response.writeHead(401, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ error: { message: "the model proxy wants the agent's placeholder key" } }));
            return;
        }
        url.searchParams.delete('key');
        const method = request.method ?? 'GET';
        const endpoint = endpointOf(options.wire, method, url.pathname);
        const name = `${method} ${safePath(url.pathname)}`;
        if (endpoint.kind === 'refused') {
            request.resume();
            refuseRequest(response, name, endpoint.why);
            return;
        }
        // The whole body first: what it may cost is read from it before anything goes up.
        const chunks = [];
        let size = 0;
        let held = 0;
        let overflow = false;
        request.on('data', (chunk) => {
            size += chunk.length;
            if (!overflow && size <= MAX_REQUEST_BODY && heldBytes + chunk.length <= MAX_HELD_BYTES) {
                chunks.push(chunk);
                held += chunk.length;
                heldBytes += chunk.length;
                return;
            }
            overflow = true;
            chunks.length = 0;
            heldBytes -= held;
            held = 0;
        });
        // The exchange is over, however it ended: its body no longer counts against what the proxy holds.
        response.on('close', () => {
            heldBytes -= held;
            held = 0;
        });
        request.on('error', () => response.destroy());
        request.on('end', () => {
            if (response.destroyed)
                return;
            const body = Buffer.concat(chunks);
            chunks.length = 0;
            if (size > MAX_REQUEST_BODY)
                return refuseRequest(response, name, 'its body is over 64 MB', 413);
            if (overflow)
                return refuseRequest(response, name, 'the proxy holds at most 256 MB of request bodies at once', 413);
            if (endpoint.kind === 'free')
                return send(request, response, url, body, 0, undefined);
            const encoding = header(request, 'content-encoding');
            const decoded = decodeBody(body, encoding);
            if (!decoded)
                return refuseRequest(response, name, `its body is encoded as ${safePath(encoding ?? '')}, which the meter cannot read`);
            let json;
            try {
                json = JSON.parse(decoded.toString('utf8'));
            }
            catch {
                // What the proxy cannot read it cannot check (a background flag, the output limit): never forwarded.
                return refuseRequest(response, name, 'its body is not JSON the meter can read');
            }
            const refusal = bodyRefusal(options.wire, json);
            if (refusal)
                return refuseRequest(response, `${name} (${refusal.name})`, refusal.why);
            // A body naming no output limit goes up with the one it is reserved at (decoded: its encoding is dropped).
            const limited = withOutputLimit(options.wire, json);
            const upBody = limited ? Buffer.from(JSON.stringify(limited)) : body;
            const worst = worstCaseUsage(options.wire, limited ?? json, limited ? upBody.length : decoded.length, modelInPath(url.pathname));
            const pending = {
                worstUsd: (options.price(worst) ?? 0) + worstPerUseUsd(options.wire, json),
                start: () => send(request, response, url, upBody, pending.worstUsd, worst.model, limited !== undefined),
                refuse: () => refuseForBudget(response, url.pathname, pending.worstUsd, worst.model)
            };
            response.on('close', () => {
                // The agent hung up while its request was held: it is no longer waiting.
                const at = waiting.indexOf(pending);
                if (at >= 0)
                    waiting.splice(at, 1);
            });
            decide(pending);
        });
    };
    /** A request the meter cannot price: answered in the API's shape, named, and never forwarded. */
    const refuseRequest = (response, name, why, status = 403) => {
        // Bounded as the refused hosts are; the warnings say when there were more.
        if (!refusedRequests.includes(name) && refusedRequests.length < MOST_REFUSALS_NAMED) {
            refusedRequests.push(name);
            refusedWhy.push(why);
        }
        answer(response, status, `ralph-action's model proxy does not forward ${name}: ${why}.`);
    };
    const answer = (response, status, message) => {
        if (response.headersSent)
            return void response.socket?.end();
        // x-should-retry: the SDKs (Anthropic's, OpenAI's) obey it: a refusal is final.
        response.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        response.end(JSON.stringify(apiError(options.wire, status, message)));
    };
    const dollars = (usd) => `$${usd.toFixed(4)}`;
    /** A model call whose worst case does not fit: recorded, answered as a spent budget, never forwarded. */
    const refuseForBudget = (response, path, worstUsd, model) => {
        const left = Math.max(0, options.budgetLeft?.() ?? 0);
        const record = {
            seq: requests.length + 1,
            method: 'POST',
            path,
            status: 0,
            usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, ...(model ? { model } : {}) },
            reservedUsd: worstUsd,
            refused: 'budget',
            error: `its worst case (${dollars(worstUsd)}) does not fit in what is left of the budget (${dollars(left)})`
        };
        requests.push(record);
        options.onRequest?.(record);
        answer(response, 402, `ralph-action's dollar budget is spent: this request may cost ${dollars(worstUsd)} and ${dollars(left)} is left (max-cost). The run stops.`);
    };
    /** Dollars reserved by the requests in flight beyond what each has cost so far. */
    const reservedAhead = () => [...inFlight].reduce((sum, f) => sum + Math.max(0, f.reservedUsd - (f.record.costUsd ?? 0)), 0);
    /** Starts a request whose worst case fits; holds it while others in flight may free their reservations. */
    const decide = (pending) => {
        const left = options.budgetLeft?.();
        if (left === undefined || pending.worstUsd <= left - reservedAhead())
            return pending.start();
        if (inFlight.size === 0)
            return pending.refuse();
        waiting.push(pending);
    };
    /** A request ended: those held may fit now. */
    const admitWaiting = () => {
        for (const pending of waiting.splice(0))
            decide(pending);
    };
    /** The cap is crossed: every request in flight is cut, and none held goes up. */
    const cutAll = () => {
        for (const flight of [...inFlight])
            flight.cut();
        for (const pending of waiting.splice(0))
            pending.refuse();
    };
    const checkBudget = () => {
        if ((inFlight.size > 0 || waiting.length > 0) && options.overBudget?.())
            cutAll();
    };
    const send = (request, response, url, body, worstUsd, model, 
    /** The body was rewritten, so it goes up plain, whatever encoding the agent sent. */
    plain = false) => {
        const record = {
            seq: requests.length + 1,
            method: request.method ?? 'GET',
            path: url.pathname,
            status: 0,
            usage: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
            ...(worstUsd > 0 ? { reservedUsd: worstUsd } : {})
        };
        requests.push(record);
        const meter = new WireUsage(options.wire, modelInPath(url.pathname) ?? model);
        const modelCall = endpointOf(options.wire, record.method, url.pathname).kind === 'model';
        const headers = {};
        for (const [name, value] of Object.entries(request.headers))
            if (value !== undefined && !NOT_FORWARDED.has(name) && !(plain && name === 'content-encoding'))
                headers[name] = value;
        Object.assign(headers, keyHeader(options.wire, options.apiKey), {
            'accept-encoding': 'identity',
            'content-length': String(body.length)
        });
        const basePath = upstream.pathname.replace(/\/$/, '');
        const target = `${basePath}${url.pathname}${url.search}`;
        const sendUp = upstream.protocol === 'https:' ? (external_node_https_default()).request : (external_node_http_default()).request;
        const outgoing = sendUp({
            protocol: upstream.protocol,
            hostname: upstream.hostname,
            port: upstream.port || undefined,
            method: request.method,
            path: target,
            headers: { ...headers, host: upstream.host },
            agent
        });
        let incoming;
        // The upstream may have billed it: the agent hung up or the proxy cut it (not: it was never reached).
        let stopped = false;
        let ended = false;
        const settle = () => {
            const tokens = meter.seen ? options.price(meter.usage) : undefined;
            record.costUsd = tokens === undefined ? undefined : tokens + meter.perUseUsd;
            record.usage = { ...meter.usage };
            options.onRequest?.(record);
        };
        const changed = () => {
            settle();
            checkBudget();
        };
        const finish = () => {
            if (ended)
                return;
            ended = true;
            inFlight.delete(flight);
            settle();
            const ok = record.status >= 200 && record.status < 300;
            // No usage seen of an answer that may be billed: charged its worst case, so the cap still holds.
            if (modelCall && (record.unread || !meter.seen) && (ok || (stopped && record.status === 0))) {
                record.costUsd = Math.max(record.costUsd ?? 0, worstUsd);
                record.worstCase = true;
                options.onRequest?.(record);
            }
            checkBudget();
            admitWaiting();
        };
        const fail = (message) => {
            if (record.error === undefined)
                record.error = message;
        };
        const flight = {
            record,
            reservedUsd: worstUsd,
            cut: () => {
                if (ended)
                    return;
                record.cut = true;
                stopped = true;
                // What was forwarded still arrives, then the connection ends without the answer's end.
                if (response.headersSent)
                    response.socket?.end();
                else
                    answer(response, 402, "ralph-action's dollar budget is spent (max-cost): the request was cut. The run stops.");
                incoming?.destroy();
                outgoing.destroy();
                finish();
            }
        };
        inFlight.add(flight);
        outgoing.end(body);
        response.on('close', () => {
            // The agent hung up (or was killed): the upstream request goes too.
            if (!response.writableFinished && !ended) {
                fail('the agent closed the connection');
                stopped = true;
                incoming?.destroy();
                outgoing.destroy();
                finish();
            }
        });
        outgoing.on('error', error => {
            if (ended)
                return;
            fail(`upstream ${upstream.host}: ${error.message}`);
            if (!response.headersSent) {
                response.writeHead(502, { 'content-type': 'application/json' });
                response.end(JSON.stringify({ error: { message: `model proxy: upstream ${upstream.host}: ${error.message}` } }));
            }
            else
                response.destroy();
            finish();
        });
        outgoing.on('response', answerIn => {
            incoming = answerIn;
            if (ended)
                return void answerIn.destroy();
            record.status = answerIn.statusCode ?? 0;
            const out = {};
            for (const [name, value] of Object.entries(answerIn.headers))
                if (value !== undefined && !NOT_RETURNED.has(name))
                    out[name] = value;
            response.writeHead(record.status, answerIn.statusMessage, out);
            response.flushHeaders();
            const type = String(answerIn.headers['content-type'] ?? '');
            const encoded = (answerIn.headers['content-encoding'] ?? 'identity') !== 'identity';
            const sse = !encoded && type.includes('text/event-stream')
                ? new SseReader(json => meter.read(json) && changed())
                : undefined;
            const json = !encoded && !sse && type.includes('json') ? [] : undefined;
            let jsonBytes = 0;
            const ok = record.status >= 200 && record.status < 300;
            if (ok && !sse && !json)
                record.unread = true;
            answerIn.on('data', (chunk) => {
                // Forwarded first, read after: the agent never waits for the meter.
                if (!response.write(chunk)) {
                    answerIn.pause();
                    response.once('drain', () => answerIn.resume());
                }
                sse?.push(chunk);
                if (json && jsonBytes < MAX_JSON_BODY) {
                    json.push(chunk);
                    jsonBytes += chunk.length;
                }
            });
            answerIn.on('end', () => {
                if (ended)
                    return;
                sse?.end();
                if (json && jsonBytes < MAX_JSON_BODY) {
                    try {
                        if (meter.read(JSON.parse(Buffer.concat(json).toString('utf8'))))
                            settle();
                    }
                    catch {
                        // Not JSON after all: what it cost cannot be read.
                        if (ok)
                            record.unread = true;
                    }
                }
                else if (json && ok)
                    record.unread = true;
                response.end();
                finish();
            });
            answerIn.on('error', error => {
                if (ended)
                    return;
                fail(error.message);
                response.destroy();
                finish();
            });
        });
    };
    const server = external_node_http_default().createServer(forward);
    const sockets = new Set();
    server.on('connection', socket => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
    });
    server.on('connect', (request, socket, head) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
        const target = request.url ?? '';
        const match = HOST_PORT.exec(target);
        const host = match?.[1] ?? target;
        if (!match || !hostAllowed(host, options.allowedHosts ?? [])) {
            refuse(safeTarget(target));
            socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nnot in allowed-hosts\n');
            return;
        }
        const remote = external_node_net_default().connect(Number(match[2]), host);
        sockets.add(remote);
        remote.on('close', () => sockets.delete(remote));
        remote.on('connect', () => {
            socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
            if (head.length > 0)
                remote.write(head);
            remote.pipe(socket);
            socket.pipe(remote);
        });
        remote.on('error', error => {
            socket.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\n\r\n${error.message}\n`);
        });
        socket.on('close', () => remote.destroy());
    });
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = server.address();
    return {
        url: `http://127.0.0.1:${port}`,
        port,
        placeholderKey,
        requests,
        refused,
        refusedRequests,
        refusedWhy,
        get refusedUnnamed() {
            return refusedUnnamed;
        },
        refuse,
        namingRefusals,
        close: () => new Promise(resolve => {
            for (const socket of sockets)
                socket.destroy();
            agent.destroy();
            server.close(() => resolve());
        })
    };
}

;// CONCATENATED MODULE: ./src/proxy/agent.ts
// Putting an agent CLI behind the model proxy: the real key and upstream from the job's environment, the
// CLI pointed at the proxy with a placeholder key (src/agents/endpoints.ts knows each CLI's setting), every
// model key removed from the agent's environment, and a cost meter that counts what crossed the wire.






/** Every variable that holds a model API key: none of them reaches an agent behind the proxy. */
const MODEL_KEY_VARIABLES = [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'OPENAI_API_KEY',
    'CODEX_API_KEY',
    'AZURE_OPENAI_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'GOOGLE_GENERATIVE_AI_API_KEY',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'DASHSCOPE_API_KEY',
    'OPENROUTER_API_KEY'
];
/**
 * A process runner whose programs get no model key: behind the proxy the ralph's commands and checks run
 * code the agent wrote (a test file, a package script), so they must not hold the key either. They share the
 * agent's egress rules, so they get its way out too: `proxyEnv`, the proxy variables allowed-hosts sets.
 */
function withoutModelKeys(run, placeholderKey, proxyEnv = {}) {
    return options => {
        const env = { ...(options.env ?? process.env), ...proxyEnv };
        // The agent's own placeholder stays: it opens the proxy and nothing else.
        for (const name of MODEL_KEY_VARIABLES)
            if (env[name] !== placeholderKey)
                delete env[name];
        return run({ ...options, env });
    };
}
/** Where each CLI's real key is read from in the job's environment, first found wins. */
const KEY_SOURCES = {
    claude: ['ANTHROPIC_API_KEY'],
    codex: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
    gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    opencode: ['OPENAI_API_KEY'],
    qwen: ['OPENAI_API_KEY', 'DASHSCOPE_API_KEY']
};
/** The vendor's own API, when neither the workflow nor the job's environment names another upstream. */
const DEFAULT_UPSTREAM = {
    claude: 'https://api.anthropic.com',
    codex: 'https://api.openai.com',
    gemini: 'https://generativelanguage.googleapis.com',
    opencode: 'https://api.openai.com',
    qwen: 'https://dashscope.aliyuncs.com/compatible-mode'
};
const AGENT_NETWORKS = ['model-only', 'allow-list', 'open'];
/** The model proxy could not be set up: one line that says why and what to do. */
class ModelProxyError extends Error {
    constructor(message) {
        super(message);
        this.name = 'ModelProxyError';
    }
}
/** The base URL of an OpenAI-style variable without its trailing /v1 (the CLI's paths carry it). */
const withoutV1 = (url) => url.replace(/\/+$/, '').replace(/\/v1$/, '');
function upstreamOf(cli, env, settings) {
    if (settings.upstream)
        return settings.upstream.replace(/\/+$/, '');
    // codex, opencode and qwen speak OpenAI's API: the job's OPENAI_BASE_URL (a gateway) is their upstream.
    const fromEnv = cli === 'claude'
        ? env.ANTHROPIC_BASE_URL
        : cli === 'gemini'
            ? env.GOOGLE_GEMINI_BASE_URL
            : env.OPENAI_BASE_URL && withoutV1(env.OPENAI_BASE_URL);
    return (fromEnv || DEFAULT_UPSTREAM[cli]).replace(/\/+$/, '');
}
/** The model a config-file CLI (codex, opencode) must be told; the others keep their own choice. */
function modelOf(cli, argv, env) {
    if (cli === 'codex')
        return codexModel(argv, env);
    if (cli !== 'opencode')
        return undefined;
    const flag = argv.findIndex(a => a === '-m' || a === '--model');
    const named = flag >= 0 ? argv[flag + 1] : argv.find(a => a.startsWith('--model='))?.slice(8);
    let model = named;
    if (!model && env.OPENCODE_CONFIG && (0,external_node_fs_namespaceObject.existsSync)(env.OPENCODE_CONFIG)) {
        try {
            const config = JSON.parse((0,external_node_fs_namespaceObject.readFileSync)(env.OPENCODE_CONFIG, 'utf8'));
            if (typeof config.model === 'string')
                model = config.model;
        }
        catch {
            // an unreadable config names no model
        }
    }
    return model?.split('/').pop();
}
function proxiedAgent(argv, env) {
    const cli = agentCliOf(argv)?.name;
    if (!cli)
        return { problem: 'unknown_agent' };
    const keyName = KEY_SOURCES[cli].find(name => env[name]);
    if (keyName === undefined)
        return { problem: 'no_key', cli };
    const model = modelOf(cli, argv, env);
    if (cli === 'opencode' && !model)
        return { problem: 'no_model', cli };
    return { cli, keyName, model };
}
/**
 * `model-proxy: auto`: on when the agent is one of the five CLIs and the job's environment holds its key (the
 * proxy has a key to inject); otherwise the agent runs as it would without the proxy, with its own credentials.
 */
function autoModelProxy(argv, env) {
    const agent = proxiedAgent(argv, env);
    if (!('problem' in agent))
        return { on: true };
    if (agent.problem === 'unknown_agent')
        return { on: false };
    const unmetered = `${agent.cli} runs with its own credentials, not behind the model proxy: cost is what the CLI reports`;
    return agent.problem === 'no_key'
        ? { on: false, why: `No ${KEY_SOURCES[agent.cli].join(' or ')} in the job's environment: ${unmetered}.` }
        : {
            on: false,
            why: `opencode's command names no model (-m <model>), which the proxy needs: ${unmetered}.`
        };
}
/** Why the agent `argv` runs cannot go behind the proxy (one line with the fix), or undefined when it can. */
function modelProxyProblem(argv, env) {
    const agent = proxiedAgent(argv, env);
    return 'problem' in agent ? problemLine(agent, argv) : undefined;
}
function problemLine(agent, argv) {
    switch (agent.problem) {
        case 'unknown_agent':
            return `The model proxy knows claude, codex, gemini, opencode and qwen; the agent \`${argv[0] ?? ''}\` is none of them: turn model-proxy off for it.`;
        case 'no_key':
            return `The model proxy holds the key for ${agent.cli}, but the job's environment has no ${KEY_SOURCES[agent.cli].join(' or ')}: set it from a secret.`;
        case 'no_model':
            return 'opencode behind the model proxy needs its model named: add `-m <model>` to the agent command.';
    }
}
/**
 * Starts the proxy for the agent `argv` runs (one of the five CLIs) and answers how the loop runs it behind
 * it. Throws ModelProxyError when the agent is not one the proxy knows, or the job holds no key for it.
 */
async function startAgentProxy(argv, env, settings, budget = {}) {
    const agent = proxiedAgent(argv, env);
    if ('problem' in agent)
        throw new ModelProxyError(problemLine(agent, argv));
    const { cli, keyName, model } = agent;
    let ca;
    if (settings.caFile) {
        try {
            ca = (0,external_node_fs_namespaceObject.readFileSync)(settings.caFile, 'utf8');
        }
        catch (error) {
            throw new ModelProxyError(`The model proxy's CA file ${settings.caFile} cannot be read (${error.code ?? String(error)}): check the path.`);
        }
    }
    const upstream = upstreamOf(cli, env, settings);
    const wire = AGENT_WIRE[cli];
    const meter = new MeteredCostMeter();
    const pricing = new FailClosedPricing(CLI_VENDOR[cli]);
    const { maxCostUsd } = budget;
    const proxy = await startModelProxy({
        wire,
        upstream,
        apiKey: env[keyName] ?? '',
        ...(ca ? { ca } : {}),
        price: usage => pricing.price(usage),
        onRequest: request => meter.update(request),
        overBudget: () => maxCostUsd !== undefined && meter.spentUsd() + meter.runningUsd() >= maxCostUsd,
        budgetLeft: () => maxCostUsd === undefined ? undefined : maxCostUsd - meter.spentUsd() - meter.runningUsd(),
        allowedHosts: settings.allowedHosts ?? []
    });
    // The agent's files hold only the placeholder key: readable by the agent's own user.
    const dir = (0,external_node_fs_namespaceObject.mkdtempSync)(external_node_path_default().join(external_node_os_default().tmpdir(), 'ralph-model-proxy-'));
    (0,external_node_fs_namespaceObject.chmodSync)(dir, 0o755);
    const setup = endpointSetup(cli, { url: proxy.url, apiKey: proxy.placeholderKey, model }, dir);
    for (const [file, content] of Object.entries(setup.files)) {
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(file), { recursive: true, mode: 0o755 });
        (0,external_node_fs_namespaceObject.writeFileSync)(file, content, { mode: 0o644 });
        // An agent of its own uid writes beside its settings (codex's sessions/, gemini's tmp/), as in /tmp:
        // sticky, so it adds its own entries and never replaces ours.
        if (settings.agentUid !== undefined)
            (0,external_node_fs_namespaceObject.chmodSync)(external_node_path_default().dirname(file), 0o1777);
    }
    // gemini reads its settings from $GEMINI_CLI_HOME/.gemini (else HOME's, which an isolated agent gets fresh).
    // Tools that honour the proxy variables (npm, pip, curl, git) reach the allowed hosts through CONNECT.
    const proxyEnv = {};
    if ((settings.allowedHosts ?? []).length > 0) {
        for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'])
            proxyEnv[name] = proxy.url;
        proxyEnv.NO_PROXY = proxyEnv.no_proxy = '127.0.0.1,localhost';
    }
    const set = {
        ...setup.env,
        ...(cli === 'gemini' ? { GEMINI_CLI_HOME: dir } : {}),
        ...proxyEnv
    };
    return {
        proxy,
        cli,
        wire,
        upstream,
        agentEnv: { set, remove: MODEL_KEY_VARIABLES.filter(name => !(name in set)) },
        proxyEnv,
        meter,
        warnings: () => [
            ...proxy.refusedRequests
                .slice(0, REQUESTS_WARNED)
                .map((name, i) => `the model proxy refused the agent ${name}: ${proxy.refusedWhy[i] ?? ''}`),
            ...(proxy.refusedRequests.length > REQUESTS_WARNED
                ? [
                    `the model proxy refused the agent more requests its meter cannot price, named in status.json (modelProxy.refusedRequests)`
                ]
                : []),
            ...pricing.warnings(),
            ...(proxy.requests.some(r => r.worstCase)
                ? [
                    'the model proxy saw no usage in an answer the upstream may have billed (compressed, not JSON, a stream without usage, or cut): it was charged its pre-authorised worst case, so the budget still holds'
                ]
                : [])
        ],
        close: async () => {
            await proxy.close();
            try {
                (0,external_node_fs_namespaceObject.rmSync)(dir, { recursive: true, force: true });
            }
            catch {
                // What an agent of its own uid wrote there is not ours to remove (the job's user behind sudo).
            }
        }
    };
}
/** Refused requests named one warning each; the rest are in status.json. */
const REQUESTS_WARNED = 10;
/** Whose prices an unlisted model of each CLI is charged at, when its name does not say (the CLI's default upstream). */
const CLI_VENDOR = {
    claude: 'Anthropic',
    codex: 'OpenAI',
    gemini: 'Google',
    opencode: 'OpenAI',
    qwen: 'Alibaba'
};
/** Unpriced models named in warnings; past these, one line says more were seen. */
const MOST_UNPRICED_NAMED = 5;
/**
 * The price table, failing closed: a model it does not list (or no model named) is charged at the highest rates
 * the table has for its vendor, so the cap never switches off. Each such model is said once.
 */
class FailClosedPricing {
    fallback;
    unpriced = new Map();
    more = false;
    constructor(fallback) {
        this.fallback = fallback;
    }
    price(usage) {
        const listed = lookupPrice(usage.model);
        if (listed)
            return costAt(listed, usage);
        const vendor = vendorOfModel(usage.model) ?? this.fallback;
        // The model's name is the agent's text (or the upstream's): kept only in the characters of model ids.
        const name = usage.model === undefined || usage.model === ''
            ? 'a request that names no model'
            : /^[A-Za-z0-9._:/@[\]-]{1,100}$/.test(usage.model)
                ? usage.model
                : 'a model named with other characters';
        if (!this.unpriced.has(name)) {
            if (this.unpriced.size < MOST_UNPRICED_NAMED)
                this.unpriced.set(name, vendor);
            else
                this.more = true;
        }
        return costAt(topPriceOf(vendor), usage);
    }
    warnings() {
        const lines = [...this.unpriced].map(([name, vendor]) => {
            const top = topPriceOf(vendor);
            return `${name} has no price in the table: it is charged at the highest ${vendor} price the table has ($${top.input} in, $${top.output} out a million tokens), so the budget still holds`;
        });
        if (this.more)
            lines.push(`more models have no price in the table: each is charged at its vendor's highest price`);
        return lines;
    }
}
const agent_RANK = { metered: 0, reported: 1, estimated: 2, unknown: 3 };
const sumTokens = (requests) => {
    const total = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
    for (const r of requests) {
        total.input += r.usage.input;
        total.output += r.usage.output;
        total.cache_read += r.usage.cache_read;
        total.cache_write += r.usage.cache_write;
    }
    return total;
};
/**
 * The loop's meter when the proxy is on: a run costs what its requests cost at the wire. What the agent's
 * own output says is kept beside it, so the record shows both and their difference.
 */
class MeteredCostMeter {
    spent = 0;
    /** Requests outside a run (the agent's leftovers after it ended), by seq: each counted once, at its latest. */
    outside = new Map();
    refusal;
    worst;
    run;
    agentSaid;
    listeners = new Set();
    spentUsd = () => this.spent + [...this.outside.values()].reduce((sum, usd) => sum + usd, 0);
    budgetRefusal = () => this.refusal;
    runningUsd = () => [...(this.run?.values() ?? [])].reduce((sum, r) => sum + (r.costUsd ?? 0), 0);
    source = () => this.worst ?? 'unknown';
    beginRun() {
        this.run = new Map();
        this.agentSaid = undefined;
    }
    observe(usage) {
        this.agentSaid = usage;
    }
    /** A request of the run in flight changed (the proxy calls this as usage streams by). */
    update(request) {
        if (request.refused === 'budget')
            this.refusal ??= `the model proxy refused a request: ${request.error ?? 'its worst case does not fit in the budget'}`;
        // A request outside a run (the agent's leftovers after it ended) still costs: it is settled at once.
        if (!this.run)
            this.outside.set(request.seq, request.costUsd ?? 0);
        else
            this.run.set(request.seq, { ...request, usage: { ...request.usage } });
        this.listeners.forEach(listener => listener());
    }
    endRun(final) {
        const requests = [...(this.run?.values() ?? [])].sort((a, b) => a.seq - b.seq);
        const tokens = sumTokens(requests);
        const cost = requests.reduce((sum, r) => sum + (r.costUsd ?? 0), 0);
        // A request with tokens but no price, or an answer the proxy could not read, makes the run's cost unknown.
        const unpriced = requests.some(r => r.unread === true || (r.costUsd === undefined && r.usage.input + r.usage.output > 0));
        const source = unpriced ? 'unknown' : 'metered';
        const agentSaid = priceUsage(final ?? this.agentSaid, priceFromTable);
        const usage = {
            input: tokens.input,
            output: tokens.output,
            cache_read: tokens.cache_read,
            cache_write: tokens.cache_write,
            cost_usd: cost,
            cost_source: source,
            requests: requests.map(r => ({
                seq: r.seq,
                path: r.path,
                status: r.status,
                ...(r.usage.model ? { model: r.usage.model } : {}),
                input: r.usage.input,
                output: r.usage.output,
                cache_read: r.usage.cache_read,
                cache_write: r.usage.cache_write,
                ...(r.costUsd !== undefined ? { cost_usd: r.costUsd } : {}),
                ...(r.cut ? { cut: true } : {}),
                ...(r.unread ? { unread: true } : {}),
                ...(r.worstCase ? { worst_case: true } : {}),
                ...(r.refused ? { refused: r.refused } : {}),
                ...(r.error ? { error: r.error } : {})
            }))
        };
        if (agentSaid.cost_source !== 'unknown')
            usage.agent_said = { cost_usd: agentSaid.cost_usd, cost_source: agentSaid.cost_source };
        this.spent += cost;
        this.worst = this.worst === undefined || agent_RANK[source] > agent_RANK[this.worst] ? source : this.worst;
        this.run = undefined;
        this.agentSaid = undefined;
        this.listeners.forEach(listener => listener());
        return usage;
    }
    onChange(listener) {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }
}
/** Checks what the user gave; undefined when the proxy is off. Throws ModelProxyError naming the setting. */
function modelProxySettings(given) {
    const { upstream, caFile, allowedHosts, network } = given;
    const named = [
        upstream !== undefined && 'model-upstream',
        caFile !== undefined && 'model-ca',
        allowedHosts.length > 0 && 'allowed-hosts',
        network !== undefined && 'agent-network'
    ].find(Boolean);
    // A wrong value is named first: turning the proxy on would not mend it.
    if (upstream !== undefined && !/^https?:\/\/[^/\s]+/.test(upstream))
        throw new ModelProxyError(`The setting 'model-upstream' must be an http(s) URL, got ${JSON.stringify(upstream)}.`);
    if (network !== undefined && !AGENT_NETWORKS.includes(network))
        throw new ModelProxyError(`The setting 'agent-network' must be one of ${AGENT_NETWORKS.join(', ')}, got ${JSON.stringify(network)}.`);
    if (!given.on) {
        if (named)
            throw new ModelProxyError(`The setting '${named}' needs the model proxy: turn model-proxy on as well.`);
        return undefined;
    }
    const chosen = (network ?? (allowedHosts.length > 0 ? 'allow-list' : 'model-only'));
    if (chosen !== 'allow-list' && allowedHosts.length > 0)
        throw new ModelProxyError(`The setting 'allowed-hosts' needs agent-network allow-list (it is ${chosen}).`);
    return {
        network: chosen,
        // A proxy setting given asks for the proxy: auto then means on, and fails where it cannot be.
        ...(given.on === 'auto' && !named ? { auto: true } : {}),
        ...(upstream !== undefined ? { upstream } : {}),
        ...(caFile !== undefined ? { caFile } : {}),
        ...(allowedHosts.length > 0 ? { allowedHosts } : {})
    };
}

;// CONCATENATED MODULE: ./src/proxy/egress.ts
// The agent's only way out is the model proxy: an iptables owner match sends every packet the agent's uid
// originates to a chain of our own that accepts the proxy's port on loopback and rejects the rest. Its other
// TCP and UDP (IPv4 and IPv6) are first redirected (nat) to a refusal listener of the action's, which reads
// where each was going from the kernel's connection tracking and names it (for DNS, the host asked for), then
// resets it or answers REFUSED (refusals.ts): so a user sees what to allow, and nothing gets out.
// The chains are named after the uid, so a later step (post, after a cancel) can remove exactly what a run
// added.



const egress_SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The chain of a uid's rules (iptables allows 28 characters). */
const egressChain = (uid) => `RALPH-AGENT-${uid}`;
/** The iptables calls that restrict `uid` to the proxy, in order (ip6tables: the same, minus the proxy). */
function egressRuleCommands(uid, proxyPort, refusalPort) {
    const chain = egressChain(uid);
    const owner = ['-m', 'owner', '--uid-owner', String(uid)];
    const rejectAll = [
        ['-A', chain, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
        ['-A', chain, '-j', 'REJECT']
    ];
    const accept = (loopback, protocol, port) => [
        '-A',
        chain,
        '-o',
        'lo',
        '-d',
        loopback,
        '-p',
        protocol,
        '--dport',
        String(port),
        '-j',
        'ACCEPT'
    ];
    // The refusal listener's port (TCP and UDP) on loopback: where the nat rules below send the rest, to be named.
    const toListener = (loopback) => refusalPort === undefined ? [] : ['tcp', 'udp'].map(protocol => accept(loopback, protocol, refusalPort));
    const nat = ['-t', 'nat'];
    const redirect = (returns) => refusalPort === undefined
        ? []
        : [
            [...nat, '-N', chain],
            ...returns,
            ...['tcp', 'udp'].map(protocol => [
                ...nat,
                '-A',
                chain,
                '-p',
                protocol,
                '-j',
                'REDIRECT',
                '--to-ports',
                String(refusalPort)
            ]),
            [...nat, '-I', 'OUTPUT', '1', ...owner, '-j', chain]
        ];
    const jump = ['-I', 'OUTPUT', '1', ...owner, '-j', chain];
    return {
        v4: [
            ['-N', chain],
            accept('127.0.0.1', 'tcp', proxyPort),
            ...toListener('127.0.0.1'),
            ...rejectAll,
            jump,
            ...redirect([
                [...nat, '-A', chain, '-d', '127.0.0.1', '-p', 'tcp', '--dport', String(proxyPort), '-j', 'RETURN']
            ])
        ],
        v6: [['-N', chain], ...toListener('::1'), ...rejectAll, jump],
        // Without IPv6 nat (a kernel lacking it) the agent's IPv6 is still refused, only not named.
        v6nat: redirect([])
    };
}
/** The calls that remove a uid's chains (each may fail when it is not there: that is fine). */
function removalCommands(uid) {
    const chain = egressChain(uid);
    const owner = ['-m', 'owner', '--uid-owner', String(uid)];
    return [
        ['-D', 'OUTPUT', ...owner, '-j', chain],
        ['-F', chain],
        ['-X', chain],
        ['-t', 'nat', '-D', 'OUTPUT', ...owner, '-j', chain],
        ['-t', 'nat', '-F', chain],
        ['-t', 'nat', '-X', chain]
    ];
}
async function iptables(program, args, prefix) {
    const result = await runProcess({
        argv: [...prefix, program, '-w', ...args],
        cwd: '/',
        env: { PATH: egress_SYSTEM_PATH, LANG: 'C' }
    });
    const error = result.spawnError?.message ?? result.stderr.head.toString('utf8').trim().split('\n')[0] ?? '';
    return { ok: result.exitCode === 0, error };
}
/** argv put before iptables: nothing as root, `sudo -n --` otherwise (the isolation's passwordless sudo). */
const egressPrefix = (privilege = 'root') => privilege === 'sudo' ? ['sudo', '-n', '--'] : [];
/** Why the rules cannot be set here, or undefined when they can be tried. */
function egressUnavailable(uid, privilege = 'root') {
    if (process.platform !== 'linux')
        return `egress rules need Linux (this is ${process.platform})`;
    if (privilege === 'root' && process.getuid?.() !== 0)
        return 'egress rules need root or sudo (iptables)';
    if (!which('iptables', { cwd: '/', path: egress_SYSTEM_PATH }))
        return 'iptables is not installed';
    if (!Number.isInteger(uid) || uid <= 0 || uid === process.getuid?.())
        return "the agent does not run as its own user, so its connections cannot be told from the action's";
    return undefined;
}
/** IPv6 is on when the kernel lists an address of it (`::1` counts: loopback services answer there too). */
function ipv6On() {
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)('/proc/net/if_inet6', 'utf8').trim() !== '';
    }
    catch {
        return false;
    }
}
/**
 * Restricts the agent's uid to the proxy. Leftover rules of the same uid (a run that was killed) are removed
 * first. Throws with the failing call's message; nothing stays half-applied.
 */
async function restrictEgress(options) {
    const prefix = options.prefix ?? [];
    const { uid } = options;
    const remove = () => removeEgressRules(uid, prefix);
    await remove();
    const commands = egressRuleCommands(uid, options.proxyPort, options.refusalPort);
    const have6 = which('ip6tables', { cwd: '/', path: egress_SYSTEM_PATH }) !== null;
    // Without ip6tables the agent's IPv6 (::1's services, an outside v6 address) would stay open: refuse it all.
    if (!have6 && ipv6On())
        throw new Error('ip6tables is not installed while IPv6 is on, so the IPv6 connections of the agent would be open');
    const run = async (program, list) => {
        for (const args of list) {
            const done = await iptables(program, args, prefix);
            if (!done.ok) {
                await remove();
                throw new Error(`${program} ${args.join(' ')} failed: ${done.error}`);
            }
        }
    };
    await run('iptables', commands.v4);
    let ipv6Unnamed;
    if (have6) {
        await run('ip6tables', commands.v6);
        // A kernel without IPv6 nat: the filter rules above still refuse the agent's IPv6, only unnamed.
        for (const args of commands.v6nat) {
            const done = await iptables('ip6tables', args, prefix);
            if (done.ok)
                continue;
            for (const undo of removalCommands(uid).filter(call => call[0] === '-t'))
                await iptables('ip6tables', undo, prefix);
            ipv6Unnamed = `ip6tables ${args.join(' ')} failed: ${done.error}`;
            break;
        }
    }
    return { chain: egressChain(uid), ...(ipv6Unnamed !== undefined ? { ipv6Unnamed } : {}), remove };
}
/** Removes what a run left for `uid` (the post step after a cancel). Answers what could not be removed. */
async function removeEgressRules(uid, prefix = []) {
    const problems = [];
    for (const program of ['iptables', 'ip6tables']) {
        for (const args of removalCommands(uid))
            await iptables(program, args, prefix);
        for (const table of ['filter', 'nat'])
            if ((await iptables(program, ['-t', table, '-S', egressChain(uid)], prefix)).ok)
                problems.push(`${program}: the chain ${egressChain(uid)} is still there (table ${table})`);
    }
    return problems;
}

;// CONCATENATED MODULE: external "node:fs/promises"
const external_node_fs_promises_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs/promises");
;// CONCATENATED MODULE: external "node:dgram"
const external_node_dgram_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:dgram");
var external_node_dgram_default = /*#__PURE__*/__nccwpck_require__.n(external_node_dgram_namespaceObject);
;// CONCATENATED MODULE: ./src/proxy/refusals.ts
// The refusal listener: where the egress rules (egress.ts) send the agent's other TCP and UDP. It reads where
// each was going from the kernel's connection tracking and names it (for DNS, the host asked for), then resets
// the connection, answers a DNS query REFUSED or drops the datagram. Names are bounded: a flood of refusals
// costs a count, not a lookup each.





/** An address as a user writes it: IPv6 compressed and bracketed (conntrack writes all 32 digits). */
const hostOf = (address) => address.includes(':') ? new URL(`http://[${address}]/`).hostname : address;
/** The original destination (host:port) of a redirected connection from `clientPort`, from conntrack. */
async function originalDestination(protocol, clientPort, listenPort, prefix) {
    const file = '/proc/net/nf_conntrack';
    let table;
    try {
        table = await (0,external_node_fs_promises_namespaceObject.readFile)(file, 'utf8');
    }
    catch {
        // Readable by root only: the job's user reads it through the same sudo as iptables.
        const read = await runProcess({
            argv: [...prefix, 'grep', '-F', `dport=${clientPort} `, file],
            cwd: '/',
            env: { PATH: egress_SYSTEM_PATH }
        });
        if (read.exitCode === 2 || read.spawnError)
            return `an unknown destination (${file} cannot be read)`;
        table = read.stdout.head.toString('utf8');
    }
    // "ipv4 2 tcp 6 117 SYN_SENT src=A dst=B sport=C dport=D ... src=127.0.0.1 dst=.. sport=LISTEN dport=C' ...":
    // the first tuple is the connection as the agent made it, the second as the listener sees it. Matched on
    // the second: where the agent's port C is still held by an earlier connection's entry (a refusal it just
    // made), the nat gives this one another port C', the one the listener sees.
    for (const line of table.split('\n')) {
        const tuple = /^ipv[46]\s+\d+\s+(\w+)\s.*?\bdst=(\S+) sport=\d+ dport=(\d+)\b.*\bsport=(\d+) dport=(\d+)/.exec(line);
        if (tuple && tuple[1] === protocol && Number(tuple[4]) === listenPort && Number(tuple[5]) === clientPort)
            return `${hostOf(tuple[2])}:${tuple[3]}`;
    }
    return 'an unknown destination (no conntrack entry)';
}
/**
 * The name a DNS query asks for and the REFUSED answer to it, or undefined when `packet` is not a query.
 * A name is kept only in the characters of host names: it is the agent's text, and it goes into the log.
 */
function dnsQuestion(packet) {
    if (packet.length < 12 || packet[2] & 0x80 || packet.readUInt16BE(4) < 1)
        return undefined;
    const labels = [];
    let at = 12;
    for (let length = packet[at]; length !== 0; length = packet[at]) {
        if (length === undefined || length > 63 || at + 1 + length > packet.length)
            return undefined;
        labels.push(packet.toString('latin1', at + 1, at + 1 + length));
        at += 1 + length;
    }
    const end = at + 5; // the root label, QTYPE and QCLASS
    if (end > packet.length)
        return undefined;
    const name = labels.join('.');
    const refusal = Buffer.concat([packet.subarray(0, 12), packet.subarray(12, end)]);
    refusal[2] = (packet[2] & 0x79) | 0x80; // an answer, of the same opcode, RD kept
    refusal[3] = 5; // REFUSED
    refusal.writeUInt16BE(1, 4);
    refusal.fill(0, 6, 12);
    return {
        name: /^[A-Za-z0-9_.-]{1,253}$/.test(name) ? name : 'a name with other characters than a host name',
        refusal
    };
}
/** Binds `port` (0: any) for TCP and UDP on 127.0.0.1, then the same port on ::1 where IPv6 is on. */
async function bindAll(port, onTcp, onUdp) {
    const closers = [];
    const close = async () => {
        await Promise.all(closers.map(closer => closer()));
    };
    for (const host of ipv6On() ? ['127.0.0.1', '::1'] : ['127.0.0.1'])
        try {
            const server = external_node_net_default().createServer(socket => onTcp(socket, port));
            await new Promise((resolve, reject) => {
                server.once('error', reject);
                server.listen(port, host, resolve);
            });
            port = server.address().port;
            closers.push(() => new Promise(resolve => server.close(() => resolve())));
            const udp = external_node_dgram_default().createSocket(host === '::1' ? 'udp6' : 'udp4');
            udp.on('message', (message, from) => onUdp(udp, message, from, port));
            // Closed on a failed bind too (close throws when the socket is already down).
            closers.push(() => new Promise(resolve => {
                try {
                    udp.close(() => resolve());
                }
                catch {
                    resolve();
                }
            }));
            await new Promise((resolve, reject) => {
                udp.once('error', reject);
                udp.bind(port, host, resolve);
            });
            udp.on('error', () => undefined);
        }
        catch (error) {
            // No ::1 (IPv6 on, loopback without it): the agent's IPv6 is still refused by the rules, only not named.
            if (host === '::1' && error.code === 'EADDRNOTAVAIL')
                break;
            await close();
            throw error;
        }
    return { port, close };
}
/** Conntrack lookups at once, and in a run: past either a refusal is counted, not named (a flood costs no lookup). */
const LOOKUPS_AT_ONCE = 16;
const LOOKUPS_IN_A_RUN = 1000;
/**
 * Where the agent's redirected connections and datagrams arrive: each is named through `refusals`; a
 * connection is reset, a DNS query answered REFUSED at once (by us, on loopback), other datagrams dropped.
 * `prefix` is the argv that reads conntrack when the action is not root (sudo -n). Closing waits for the
 * lookups in flight, so every refusal is in the record.
 */
async function startRefusalListener(refusals, prefix = []) {
    const pending = new Set();
    let lookups = 0;
    let closed = false;
    /** Names a refusal from its conntrack entry, when the budgets allow a lookup; else counts it. */
    const name = (protocol, clientPort, port, named) => {
        if (closed ||
            pending.size >= LOOKUPS_AT_ONCE ||
            lookups >= LOOKUPS_IN_A_RUN ||
            !refusals.namingRefusals()) {
            refusals.refuse();
            return Promise.resolve();
        }
        lookups++;
        const lookup = originalDestination(protocol, clientPort, port, prefix)
            .then(target => refusals.refuse(named(target)))
            .catch(() => refusals.refuse())
            .finally(() => pending.delete(lookup));
        pending.add(lookup);
        return lookup;
    };
    // A datagram resent while its first is still being looked up is not looked up (nor counted) again.
    const looking = new Set();
    const onTcp = (socket, port) => {
        socket.on('error', () => undefined);
        void name('tcp', socket.remotePort ?? 0, port, target => target).then(() => socket.resetAndDestroy());
    };
    const onUdp = (socket, message, from, port) => {
        // Every query is answered at once, whatever is looked up: a resolver asking A and AAAA from one port
        // must not wait out its timeout for the second.
        const query = dnsQuestion(message);
        if (query && !closed)
            try {
                socket.send(query.refusal, from.port, from.address, () => undefined);
            }
            catch {
                // The socket closed under us: the rules are gone, nothing to answer.
            }
        const key = `${from.address} ${from.port}`;
        if (looking.has(key))
            return;
        looking.add(key);
        void name('udp', from.port, port, target => query && target.endsWith(':53') ? `udp ${target} (a DNS lookup of ${query.name})` : `udp ${target}`).then(() => looking.delete(key));
    };
    const listening = await bindFirstFree(onTcp, onUdp);
    return {
        port: listening.port,
        close: async () => {
            closed = true;
            await Promise.all(pending);
            await listening.close();
        }
    };
}
/** One port for all four; another try when the port taken on 127.0.0.1 is in use on ::1. */
async function bindFirstFree(onTcp, onUdp) {
    for (let attempt = 1;; attempt++) {
        try {
            return await bindAll(0, onTcp, onUdp);
        }
        catch (error) {
            if (error.code !== 'EADDRINUSE' || attempt === 5)
                throw error;
        }
    }
}

;// CONCATENATED MODULE: ./src/loop/guard.ts
const MAX_TIMER_MS = 2 ** 31 - 1;
const systemClock = {
    now: () => Date.now(),
    setTimeout(fn, ms) {
        const timer = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
        return () => clearTimeout(timer);
    }
};
class LoopGuard {
    options;
    controller = new AbortController();
    cleanups = [];
    watchingCost = false;
    trip;
    constructor(options) {
        this.options = options;
        const { clock, signal, deadline, meter } = options;
        if (signal?.aborted)
            this.fire('cancelled', clock.now(), 'the run was cancelled');
        else if (signal) {
            const onAbort = () => this.fire('cancelled', clock.now(), 'the run was cancelled');
            signal.addEventListener('abort', onAbort, { once: true });
            this.cleanups.push(() => signal.removeEventListener('abort', onAbort));
        }
        if (deadline !== undefined)
            this.cleanups.push(clock.setTimeout(() => this.fire('timeout', deadline, 'the total time budget ran out'), deadline - clock.now()));
        this.cleanups.push(meter.onChange(() => this.checkCost()));
    }
    /** Aborts when the run must stop now; pass it to every process the loop starts. */
    get signal() {
        return this.controller.signal;
    }
    /** Cost is enforced mid-run only while an agent runs (checks and commands cost nothing). */
    watchCost(on) {
        this.watchingCost = on;
        if (on)
            this.checkCost();
    }
    /** The dollar budget is already spent by finished runs, or a request's worst case no longer fits in it. */
    costSpent() {
        const max = this.options.maxCostUsd;
        return (max !== undefined && (this.options.meter.spentUsd() >= max || !!this.options.meter.budgetRefusal?.()));
    }
    timeSpent() {
        const deadline = this.options.deadline;
        return deadline !== undefined && this.options.clock.now() >= deadline;
    }
    /** Waits `ms`, or less when the run must stop (or `also` fires). */
    sleep(ms, also) {
        const signals = [this.signal, ...(also ? [also] : [])];
        return new Promise(resolve => {
            if (signals.some(s => s.aborted) || ms <= 0)
                return resolve();
            const done = () => {
                cancel();
                for (const s of signals)
                    s.removeEventListener('abort', done);
                resolve();
            };
            const cancel = this.options.clock.setTimeout(done, ms);
            for (const s of signals)
                s.addEventListener('abort', done, { once: true });
        });
    }
    /** Stops watching (timers, listeners); the signal keeps its state. */
    dispose() {
        for (const cleanup of this.cleanups.splice(0))
            cleanup();
    }
    checkCost() {
        const { maxCostUsd, meter, clock } = this.options;
        if (!this.watchingCost || maxCostUsd === undefined)
            return;
        const refusal = meter.budgetRefusal?.();
        if (refusal)
            return this.fire('budget_exhausted', clock.now(), refusal);
        const total = meter.spentUsd() + meter.runningUsd();
        if (total >= maxCostUsd)
            this.fire('budget_exhausted', clock.now(), `the cost ($${total.toFixed(4)}) reached the budget ($${maxCostUsd})`);
    }
    fire(cause, at, detail) {
        if (this.trip)
            return;
        this.trip = { cause, at, detail };
        // A spent budget is killed at once: no grace in which the agent could spend more (or exit slowly, as
        // gemini does on SIGTERM, ~0.6-1.5 s). A time cap or a cancel keeps the usual SIGTERM grace.
        const reason = Object.assign(new Error(detail), cause === 'budget_exhausted' ? { killGraceMs: 0 } : {});
        this.controller.abort(reason);
    }
}

;// CONCATENATED MODULE: ./src/loop/stop.ts
/** Why the loop stopped at its cap, with the state it was left in when that is worth saying. */
function capReached(max, last) {
    const cap = `reached the cap of ${max} iteration${max === 1 ? '' : 's'}`;
    return last?.verdict === 'checks_passed_no_tag'
        ? `${cap}; the checks pass, but the agent has not given the completion tag`
        : cap;
}
const fromTrip = (trip) => ({ reason: trip.cause, detail: trip.detail });
/** What the iteration's own outcome says, most decisive first; undefined when it does not end the loop. */
function outcomeStop(end, budgets, breaker) {
    const agent = end.record.agent;
    if (end.crash)
        return { reason: 'agent_error', detail: `Run crashed: ${end.crash}` };
    if (end.success)
        return budgets.gated
            ? { reason: 'all_checks_passed', detail: `every check passed in iteration ${end.iteration}` }
            : { reason: 'completed', detail: `the agent gave the completion signal in iteration ${end.iteration}` };
    if (end.interrupted && budgets.trip)
        return fromTrip(budgets.trip);
    if (end.limitStop)
        return { reason: 'agent_error', detail: end.limitStop };
    if (budgets.stopOnError && agent && !agent.success && !end.limitWaited) {
        const how = agent.timedOut ? 'timed out' : `exited with ${agent.exitCode ?? agent.signal}`;
        return {
            reason: 'agent_error',
            detail: `the agent ${how} in iteration ${end.iteration}; stopping due to --stop-on-error`
        };
    }
    if (breaker)
        return { reason: 'circuit_open', detail: `circuit open (${breaker.rule}): ${breaker.message}` };
    return undefined;
}
/** A gate's output when a module or a program that an install puts in place is missing (node, sh, bash, python). */
const MISSING_INSTALL = /Cannot find (module|package) |MODULE_NOT_FOUND|: command not found|^(\/bin\/)?sh: \d+: .*: not found|No module named /m;
/**
 * The fix, when a clean checkout's gate missed a module or a command and no setup ran there: what an install
 * left in the loop's tree (node_modules) is never in a clean checkout. Empty otherwise.
 */
function missingSetupHint(verification) {
    if (verification.setup.length > 0)
        return '';
    if (!verification.checks.some(run => !run.passed && MISSING_INSTALL.test(run.tail)))
        return '';
    return "; a gate there could not find a module or a command and no setup ran: what an install left in the loop's tree (node_modules) is never in a clean checkout, so give setup the project's install command (a JavaScript project's: setup: npm ci)";
}
/**
 * Whether the loop stops now, and why. `end` is the iteration just run (undefined before the first);
 * `breaker` is what the stagnation breaker made of it. Undefined: the loop goes on.
 */
function decideStop(end, budgets, breaker) {
    const stop = end && outcomeStop(end, budgets, breaker);
    if (stop)
        return stop;
    const { maxIterations: max, trip } = budgets;
    if (max !== undefined && budgets.ran >= max)
        return budgets.last?.verification?.verdict === 'failed'
            ? {
                reason: 'verify_failed',
                detail: `${capReached(max, undefined)}; the gates passed in the loop's tree but failed on a clean checkout of ${budgets.last.verification.commit.slice(0, 12)}${missingSetupHint(budgets.last.verification)}`
            }
            : { reason: 'max_iterations', detail: capReached(max, budgets.last) };
    if (trip)
        return fromTrip(trip);
    if (budgets.finishAsked)
        return { reason: 'cancelled', detail: 'stopped after the iteration in flight, as asked' };
    if (budgets.timeSpent)
        return { reason: 'timeout', detail: 'the total time budget is spent' };
    if (budgets.costSpent)
        return { reason: 'budget_exhausted', detail: `the cost budget ($${budgets.maxCostUsd}) is spent` };
    return undefined;
}

;// CONCATENATED MODULE: ./src/security/env.ts
// Which variables are secret, and the environment the agent (and every process of the loop) gets: the
// job's, minus GitHub and Actions credentials and the runner's file commands, plus what the user allows back.
// One list for the agent, the action's own git, and the scrub of the action's /proc/<pid>/environ.
/** Credentials a process of the loop never gets unless the user allows them (a `*` ends a prefix). */
const SECRET_VARIABLES = [
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'GH_ENTERPRISE_TOKEN',
    'GITHUB_ENTERPRISE_TOKEN',
    'ACTIONS_RUNTIME_TOKEN',
    'ACTIONS_RUNTIME_URL',
    'ACTIONS_ID_TOKEN_REQUEST_*',
    'ACTIONS_RESULTS_URL',
    'ACTIONS_CACHE_URL',
    // Every action input: `with: github-token: …` arrives as INPUT_GITHUB-TOKEN.
    'INPUT_*',
    // The action's saved state between its main and post steps.
    'STATE_*'
];
/**
 * The files the runner reads back after the step: whoever can append to them sets the environment (LD_PRELOAD)
 * and PATH of every later step, this action's post step included, and its outputs, state and summary. Never
 * given to a process of the loop, whatever the allow-list says.
 */
const env_RUNNER_FILE_COMMANDS = [
    'GITHUB_ENV',
    'GITHUB_PATH',
    'GITHUB_OUTPUT',
    'GITHUB_STATE',
    'GITHUB_STEP_SUMMARY'
];
const matches = (name, pattern) => pattern.endsWith('*')
    ? name.toUpperCase().startsWith(pattern.slice(0, -1).toUpperCase())
    : name.toUpperCase() === pattern.toUpperCase();
/** True for a credential variable (ignoring any allow-list). */
function isSecretVariable(name) {
    return SECRET_VARIABLES.some(pattern => matches(name, pattern));
}
const isFileCommand = (name) => env_RUNNER_FILE_COMMANDS.includes(name.toUpperCase());
/** Whether a process of the loop may keep `name`, given the user's allow-list. */
function agentMayKeep(name, allow = []) {
    if (isFileCommand(name))
        return false;
    return !isSecretVariable(name) || allow.some(pattern => matches(name, pattern));
}
/** The agent's environment: `base` (the job's) without credentials except those `allow` names, plus `set`. */
function agentEnvironment(base, options = {}) {
    const env = {};
    for (const [name, value] of Object.entries(base))
        if (value !== undefined &&
            agentMayKeep(name, options.allow) &&
            !options.remove?.some(p => matches(name, p)))
            env[name] = value;
    return { ...env, ...options.set };
}
/** Names of the variables `agentEnvironment` removed from `base`, for the record (values never). */
function removedVariables(base, options = {}) {
    const kept = agentEnvironment(base, options);
    return Object.keys(base)
        .filter(name => base[name] !== undefined && !(name in kept))
        .sort();
}
/**
 * Runs `fn` with the secret variables (but those `allow` names) taken out of this process's environment, so
 * that nothing started meanwhile inherits them: not the agent, and not a git hook or filter the loop's own git
 * commands might run. They are put back afterwards (the artifact upload needs ACTIONS_RUNTIME_TOKEN).
 */
async function withoutSecretVariables(fn, allow = []) {
    const saved = {};
    for (const key of Object.keys(process.env))
        if (isSecretVariable(key) && !agentMayKeep(key, allow)) {
            saved[key] = process.env[key];
            delete process.env[key];
        }
    try {
        return await fn();
    }
    finally {
        Object.assign(process.env, saved);
    }
}

;// CONCATENATED MODULE: ./src/security/git-env.ts
// The action's own git is hermetic. git reads ~/.gitconfig and the system config before any `-c`: a
// trace2.eventTarget there records the push's auth header, and an insteadOf rewrite there wins the tie with
// ours and sends the push (and its header) to a program of the agent's. So every git command the action runs
// reads no system or global config, has a HOME of its own, inherits no GIT_* variable and runs no hook.





// Whatever the agent left in .git/config must not run code while the action (and its tokens) is alive: no
// hooks (post-checkout, reference-transaction, husky's core.hooksPath), no fsmonitor daemon.
// Nor does the work tree, the agent's: its .gitattributes can name a filter or a diff driver, which runs
// only if config defines it, so no attributes file and no submodule recursion of git's own add to that.
const HARDENING = [
    ['core.hooksPath', '/dev/null'],
    ['core.fsmonitor', 'false'],
    ['core.attributesFile', '/dev/null'],
    ['submodule.recurse', 'false'],
    ['fetch.recurseSubmodules', 'false']
];
/** Environment variables that add `entries` as command-line-scope config, after any already set. */
function configEnv(entries, base = {}) {
    const start = Number(base.GIT_CONFIG_COUNT ?? 0) || 0;
    const env = { GIT_CONFIG_COUNT: String(start + entries.length) };
    entries.forEach(([key, value], i) => {
        env[`GIT_CONFIG_KEY_${start + i}`] = key;
        env[`GIT_CONFIG_VALUE_${start + i}`] = value;
    });
    return env;
}
let ownHome;
let jobSafeDirectories;
/** An empty HOME of the action's own (mode 0700), made once per process. */
function gitHome() {
    ownHome ??= (0,external_node_fs_namespaceObject.mkdtempSync)(external_node_path_default().join(process.env.RUNNER_TEMP || (0,external_node_os_namespaceObject.tmpdir)(), 'ralph-git-home-'));
    return ownHome;
}
/**
 * The job's own `safe.directory` settings (a container job's checkout is owned by another user, and
 * actions/checkout trusts it in the global config), read once, the first time git runs: before the loop.
 */
function safeDirectories() {
    if (jobSafeDirectories)
        return jobSafeDirectories;
    try {
        const out = (0,external_node_child_process_namespaceObject.execFileSync)('git', ['config', '--get-all', 'safe.directory'], {
            cwd: '/',
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
            timeout: 10_000
        });
        jobSafeDirectories = out.split('\n').filter(Boolean);
    }
    catch {
        jobSafeDirectories = [];
    }
    return jobSafeDirectories;
}
/**
 * The variables for one git command of the action, merged over `base` by the caller (an undefined value
 * removes a variable): no secret, no GIT_* of the job's, no system or global config, an own HOME, no hooks,
 * no prompt; `config` is added as command-line config.
 */
function git_env_hermeticGitEnvironment(config = [], base = process.env) {
    const env = {};
    for (const name of Object.keys(base))
        if (name.startsWith('GIT_') || isSecretVariable(name) || name.startsWith('XDG_'))
            env[name] = undefined;
    const home = gitHome();
    const trusted = safeDirectories().map(dir => ['safe.directory', dir]);
    return {
        ...env,
        HOME: home,
        XDG_CONFIG_HOME: external_node_path_default().join(home, '.config'),
        GIT_CONFIG_NOSYSTEM: '1',
        // Not a file of ours: under isolation none the agent is our user and could write one; /dev/null stays empty.
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_ATTR_NOSYSTEM: '1',
        GIT_TERMINAL_PROMPT: '0',
        GIT_ASKPASS: '',
        SSH_ASKPASS: '',
        ...configEnv([...HARDENING, ...trusted, ...config])
    };
}

;// CONCATENATED MODULE: ./src/security/scripts.ts
// The shell the isolation runs. PRIVILEGED runs as root (directly, or through `sudo -n`): it creates the
// agent's user, gives it a fresh HOME and the work tree, and takes all of that back. LAUNCHER runs as the
// agent's user: it takes its environment from stdin, so no value shows in an argv and sudo's env_reset,
// secure_path and deny-lists change nothing about what the agent gets.
/**
 * A run holds its agent's user for its whole length: HOLDER (`PID:START` of the action's process) is written
 * to /run/ralph-action/agent-users/USER. A live other holder makes prepare and claim print `busy PID` and exit
 * 1, so two runs on one machine never share a uid (each kills every process of its uid).
 *
 * `bash -s -- prepare USER HOME TREE OWNER_UID OWNER_GROUPS PROGRAM SETTINGS HOLDER [REACH...]` takes USER for
 * HOLDER and prints `user UID GID`,
 * `top GID MODE` (the work tree's top folder before), `opened MODE PATH` for each folder it let the agent
 * pass through, or `error MESSAGE` and exits 1. SETTINGS (or '') is the staged copy of the agent CLI's settings:
 * its content goes into the fresh HOME while that is still root's, so nothing of the agent's user can race it.
 *
 * `bash -s -- lend UID GID DIR USER` gives DIR (a clean checkout the action made) to the agent's user, letting it
 * pass through DIR's parents (`opened MODE PATH` each); `bash -s -- reclaim UID DIR OWNER_UID OWNER_GID
 * [MODE PATH]...` takes DIR back (setuid and setgid bits cleared first) and restores those modes. Every process
 * of UID must be dead by then.
 *
 * `bash -s -- claim USER HOLDER WAS` takes USER for HOLDER when WAS (the run it releases for) or no live run
 * holds it: post, after a killed main, holds the user before it kills what is left of it.
 *
 * `bash -s -- release UID HOME TREE OWNER_UID OWNER_GID TOP_GID TOP_MODE USER HOLDER SECONDS PLACES [MODE PATH]...`
 * gives back what the agent owns in the work tree (setuid and setgid bits cleared first), restores the modes,
 * removes the HOME, UID's files in PLACES (SWEEP_FILES, within SECONDS) and HOLDER's hold on USER, and prints
 * `swept N`, and `problem MESSAGE` for what it could not do. Every process of UID must be dead by then.
 */
/**
 * The bash function `sweep_files UID SECONDS PLACE...`: removes every file, link and (then empty) folder that
 * UID owns under each PLACE (a folder, not a link), and prints `swept N` (how many it removed), and `problem
 * MESSAGE` when it ran out of time. Links are removed, never followed, and nothing of another uid is touched:
 * a folder of UID that holds another user's file stays, with that file. A setuid file of UID goes with its
 * name; no other name of it is left (protected_hardlinks: UID could link it only where it could write). One
 * file system each (-xdev): nothing mounted inside is walked. UID must have no process left: find is not
 * safe against an owner that renames as it walks.
 */
const SWEEP_FILES = `
sweep_files() {
  local uid=$1 seconds=$2 place found=() n
  shift 2
  for place in "$@"; do [ -d "$place" ] && [ ! -L "$place" ] && found+=("$place"); done
  if [ \${#found[@]} -eq 0 ]; then printf 'swept 0\\n'; return 0; fi
  n=$(set -o pipefail; timeout -s KILL "$seconds" find -P "\${found[@]}" -xdev -mindepth 1 -depth -uid "$uid" \\( ! -type d -o -empty \\) -delete -printf x 2>/dev/null | wc -c)
  [ $? -eq 137 ] && problem "the removal of uid $uid's files from $* ran out of its $seconds s: some may be left"
  printf 'swept %s\\n' "$n"
}
`;
const PRIVILEGED = `
set -u
${SWEEP_FILES}
shopt -s dotglob nullglob
fail() { printf 'error %s\\n' "$*"; exit 1; }
problem() { printf 'problem %s\\n' "$*"; }
# A file of the agent's with another name outside (a hard link into /tmp) gets a copy of its own before it is
# given away: the chown would make the other name root's too, and the sweep would leave it, and its folder.
unshare_links() {
  local f t
  while IFS= read -r -d '' f; do
    t=$(mktemp -- "$f.XXXXXX") && cp -p -- "$f" "$t" && mv -f -- "$t" "$f" || problem "could not copy $f apart from its other names"
  done < <(find "$@" -uid "$uid" -type f -links +1 -print0)
}
as_agent() { setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs -- "$@"; }
# The entries of the work tree, .git left out: it stays the owner's, readable only.
entries() { local e; for e in "$tree"/*; do [ "$e" = "$tree/.git" ] || printf '%s\\0' "$e"; done; }
holds=/run/ralph-action/agent-users
# Lets the agent's user ($uid, $gid) pass through every folder down to $1 (o+x: no listing); prints each opened.
pass() {
  local dirs=() d=$1
  while [ "$d" != / ] && [ -n "$d" ]; do dirs=("$d" "\${dirs[@]}"); d=$(dirname -- "$d"); done
  for d in "\${dirs[@]}"; do
    as_agent test -x "$d" && continue
    printf 'opened %s %s\\n' "$(stat -c %a -- "$d")" "$d"
    chmod o+x -- "$d" || fail "could not let $user pass through $d"
  done
}
# Whether PID:START names a process that is running (the start time tells a reused pid apart).
alive() {
  local stat rest
  stat=$(cat "/proc/\${1%%:*}/stat" 2>/dev/null) || return 1
  rest=\${stat##*) }
  set -- "\${1#*:}" $rest
  [ "$1" = "\${21}" ]
}
# Every process of USER is killed (kill -1 as that user), in rounds, so a fork loop cannot outrun it.
sweep() {
  local u g round
  u=$(id -u "$1" 2>/dev/null) || return 0
  g=$(id -g "$1")
  for round in 1 2 3 4 5 6 7 8 9 10; do
    setpriv --reuid="$u" --regid="$g" --clear-groups -- bash -c 'kill -s KILL -1' 2>/dev/null
    sleep 0.05
  done
}
# take USER HOLDER [WAS]: one taker at a time on this machine (flock), the hold kept while its holder lives.
# The folder is root's alone: no other user may open the lock file, and hold it to stall every run (flock).
take() {
  local file="$holds/$1" held
  mkdir -p "$holds" && chmod 0700 "$(dirname "$holds")" "$holds" && exec 9>>"$holds/.lock" &&
    flock -w 30 9 || fail "could not hold the user $1 in $holds"
  held=$(cat -- "$file" 2>/dev/null)
  if [ -n "$held" ] && [ "$held" != "$2" ] && [ "$held" != "\${3:-}" ]; then
    if alive "$held"; then
      printf 'busy %s\\n' "\${held%%:*}"
      exit 1
    fi
    # A dead run's leftovers die before its user is another run's.
    sweep "$1"
  fi
  printf '%s\\n' "$2" > "$file" || fail "could not hold the user $1 in $holds"
  exec 9>&-
}
step=$1; shift
if [ "$step" = prepare ]; then
  user=$1 home=$2 tree=$3 owner=$4 ownergroups=$5 program=$6 settings=$7 holder=$8; shift 8
  take "$user" "$holder"
  if ! id -u "$user" >/dev/null 2>&1; then
    out=$(useradd --system --user-group --no-create-home --home-dir "$home" --shell /usr/sbin/nologin "$user" 2>&1) ||
      fail "useradd could not create the user $user: $out"
  fi
  uid=$(id -u "$user") gid=$(id -g "$user")
  [ "$uid" != 0 ] && [ "$gid" != 0 ] || fail "the user $user is root or in the root group"
  [ "$uid" != "$owner" ] || fail "the user $user is the user the action runs as"
  [ "$(id -G "$user")" = "$gid" ] || fail "the user $user is in other groups ($(id -Gn "$user")), which may give it rights: the agent's user must be in its own group only"
  case ",$ownergroups," in *",$gid,"*) fail "the group of $user ($gid) is one of the action's own groups" ;; esac
  mkdir -p -m 0755 "$(dirname "$home")" && rm -rf -- "$home" && mkdir -m 0700 -- "$home" &&
    printf '[safe]\\n\\tdirectory = %s\\n' "$tree" > "$home/.gitconfig" || fail "could not make a fresh HOME for $user at $home"
  # The staged settings: links and special files never (staging copied none; this is the boundary's own check).
  if [ -n "$settings" ]; then
    cp -R -P --preserve=mode -- "$settings/." "$home/" && find "$home" -mindepth 1 ! -type f ! -type d -delete ||
      fail "could not copy the agent's settings into $home"
  fi
  chown -R "$uid:$gid" -- "$home" || fail "could not make a fresh HOME for $user at $home"
  printf 'user %s %s\\n' "$uid" "$gid"
  # Let the agent pass through every folder above the work tree and the files it must read (o+x: no listing).
  pass "$(dirname -- "$tree")"
  for r in "$@"; do pass "$r"; done
  # The work tree's content (what the action's user owns of it) becomes the agent's; the top folder stays the
  # owner's, shared with the agent's group and sticky, so the agent can add and remove its own entries but
  # never rename or remove .git.
  mapfile -d '' -t found < <(entries)
  if [ \${#found[@]} -gt 0 ]; then
    find "\${found[@]}" -uid "$owner" -exec chown -h "$uid:$gid" -- {} + || fail "could not give the work tree $tree to $user"
  fi
  printf 'top %s %s\\n' "$(stat -c %g -- "$tree")" "$(stat -c %a -- "$tree")"
  chgrp -- "$gid" "$tree" && chmod g+rwx,+t -- "$tree" || fail "could not share the work tree $tree with $user"
  if [ -n "$program" ] && ! as_agent test -x "$program"; then
    fail "the user $user cannot run the agent $program: install it where every user can run it (e.g. npm install -g, or the tool cache), or set isolation: none"
  fi
elif [ "$step" = claim ]; then
  take "$1" "$2" "$3"
elif [ "$step" = release ]; then
  uid=$1 home=$2 tree=$3 owner=$4 ownergroup=$5 topgid=$6 topmode=$7 user=$8 holder=$9 seconds=\${10} folders=\${11}
  shift 11
  mapfile -d '' -t found < <(entries)
  if [ \${#found[@]} -gt 0 ]; then
    # A setuid file the agent made must not become one of the owner's.
    find "\${found[@]}" -uid "$uid" ! -type l -perm /6000 -exec chmod ug-s -- {} + || problem "could not clear setuid bits in $tree"
    unshare_links "\${found[@]}"
    find "\${found[@]}" -uid "$uid" -exec chown -h "$owner:$ownergroup" -- {} + || problem "could not give the work tree $tree back to uid $owner"
  fi
  chgrp -- "$topgid" "$tree" && chmod -- "0$topmode" "$tree" || problem "could not restore the mode of $tree"
  while [ $# -ge 2 ]; do chmod -- "0$1" "$2" || problem "could not restore the mode of $2"; shift 2; done
  rm -rf -- "$home" || problem "could not remove $home"
  IFS=: read -r -a folders <<< "$folders"
  sweep_files "$uid" "$seconds" "\${folders[@]}"
  [ "$(cat -- "$holds/$user" 2>/dev/null)" != "$holder" ] || rm -f -- "$holds/$user" || problem "could not let go of the user $user"
elif [ "$step" = lend ]; then
  uid=$1 gid=$2 dir=$3 user=$4
  pass "$(dirname -- "$dir")"
  chown -R -h "$uid:$gid" -- "$dir" || fail "could not lend $dir to $user"
elif [ "$step" = reclaim ]; then
  uid=$1 dir=$2 owner=$3 ownergroup=$4; shift 4
  find "$dir" -uid "$uid" ! -type l -perm /6000 -exec chmod ug-s -- {} + || problem "could not clear setuid bits in $dir"
  unshare_links "$dir"
  chown -R -h "$owner:$ownergroup" -- "$dir" || problem "could not take $dir back"
  while [ $# -ge 2 ]; do chmod -- "0$1" "$2" || problem "could not restore the mode of $2"; shift 2; done
else
  fail "unknown step $step"
fi
`;
/** `bash -c LAUNCHER ralph-agent PROGRAM ARGS...`, stdin: `NAME=value\0`… then an empty entry, then the program's input. */
const LAUNCHER = `
for name in $(compgen -e); do unset -v "$name"; done 2>/dev/null
while IFS= read -r -d '' entry && [ -n "$entry" ]; do export "$entry" 2>/dev/null; done
exec "$@"
`;
/** Every process of the user running this is killed (kill(-1) spares only the caller). */
const KILL_ALL = 'kill -s KILL -1 2>/dev/null; exit 0';
/** `bash -c SIGNAL SIG PID...`: the signal to each pid (negative: a group) this user may signal. */
const SIGNAL = 'kill -s "$0" -- "$@" 2>/dev/null; exit 0';

;// CONCATENATED MODULE: ./src/security/settings.ts
// The agent CLI's own settings, for an agent that runs as its own user with a fresh HOME: a copy of the files
// and folders its preset names (never the runner's whole HOME), staged by the action's own user in a folder of
// its own, then put into the agent's HOME by the isolation's prepare step while that HOME is still root's. No
// symbolic link is followed or copied (one could point out of the settings into the runner's secrets), nothing
// but regular files and folders is copied, and the originals are never the agent's: it cannot write back.



/** A copy larger than this in all is cut short (a ~/.claude can hold gigabytes of old transcripts). */
const MAX_BYTES = 64 * 1024 * 1024;
/**
 * Copies each existing `from` into a fresh staging folder at `to`, without following a symbolic link anywhere
 * (the place itself included). Answers what it copied and what it left out, and why.
 */
function stageSettings(copies, parent = (0,external_node_os_namespaceObject.tmpdir)()) {
    const staged = { copied: [], skipped: [] };
    let bytes = 0;
    let dir;
    const skip = (file, why) => {
        staged.skipped.push(`${file} (${why})`);
    };
    const copy = (from, to) => {
        const stat = (0,external_node_fs_namespaceObject.lstatSync)(from);
        if (stat.isSymbolicLink())
            return (skip(from, 'a symbolic link'), 0);
        if (stat.isDirectory()) {
            (0,external_node_fs_namespaceObject.mkdirSync)(to, { recursive: true, mode: 0o700 });
            let files = 0;
            for (const entry of (0,external_node_fs_namespaceObject.readdirSync)(from).sort())
                files += copy(external_node_path_default().join(from, entry), external_node_path_default().join(to, entry));
            return files;
        }
        if (!stat.isFile())
            return (skip(from, 'not a regular file'), 0);
        if (bytes + stat.size > MAX_BYTES)
            return (skip(from, `over the ${MAX_BYTES >> 20} MB the copy may take`), 0);
        // O_NOFOLLOW: a link swapped in since the lstat is refused, not read; O_NONBLOCK: a FIFO is not waited on.
        const fd = (0,external_node_fs_namespaceObject.openSync)(from, external_node_fs_namespaceObject.constants.O_RDONLY | external_node_fs_namespaceObject.constants.O_NOFOLLOW | external_node_fs_namespaceObject.constants.O_NONBLOCK);
        try {
            if (!(0,external_node_fs_namespaceObject.fstatSync)(fd).isFile())
                return (skip(from, 'not a regular file'), 0);
            const content = (0,external_node_fs_namespaceObject.readFileSync)(fd);
            bytes += content.length;
            (0,external_node_fs_namespaceObject.writeFileSync)(to, content, { mode: stat.mode & 0o700 });
        }
        finally {
            (0,external_node_fs_namespaceObject.closeSync)(fd);
        }
        return 1;
    };
    for (const { from, to } of copies) {
        try {
            (0,external_node_fs_namespaceObject.lstatSync)(from);
        }
        catch {
            continue; // the CLI has no settings there: nothing to copy
        }
        dir ??= (0,external_node_fs_namespaceObject.mkdtempSync)(external_node_path_default().join(parent, 'ralph-agent-settings-'));
        const target = external_node_path_default().join(dir, to);
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(target), { recursive: true, mode: 0o700 });
        try {
            const files = copy(from, target);
            if (files > 0)
                staged.copied.push(`${from} → ~/${to} (${files} file${files === 1 ? '' : 's'})`);
        }
        catch (error) {
            skip(from, error.code ?? error.message);
        }
    }
    if (dir)
        staged.dir = dir;
    return staged;
}

;// CONCATENATED MODULE: ./src/security/isolation.ts
// The agent as its own unprivileged user. A deny-list of variables is no boundary while the agent is the
// user that holds the tokens: it can read /proc/<pid>/environ and mem of the action, write ~/.gitconfig that
// the action's git obeys, append to the runner's GITHUB_ENV, and (on hosted runners) sudo. Another uid with no
// group, no sudo and no_new_privs can do none of that. The agent, the ralph's commands and the checks all run
// as that user, started with setpriv when the action is root and through `sudo -n` when the job's user has
// passwordless sudo; whenever none of them is running, every process of that uid is killed.










const DEFAULT_AGENT_USER = 'ralph-agent';
/** Where the agent's fresh HOME is made (wiped at every start and at the end). */
const HOMES = '/var/lib/ralph-action';
/** PATH for the tools the isolation itself runs (setpriv, sudo, bash, useradd). */
const SYSTEM_ENV = { PATH: SYSTEM_PATH, LANG: 'C' };
/** useradd's default NAME_REGEX: a name that cannot read as an option or a path. */
const AGENT_USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A socket on stdin (Node's pipes are socketpairs) makes bash read ~/.bashrc, as if run by rshd: never.
const BASH = ['bash', '--norc', '--noprofile', '-c'];
/** Rounds of kill(-1) before a uid that keeps forking is reported. */
const KILL_ROUNDS = 20;
/** Tenths of a second to wait for the uid's killed processes to be reaped (init may take a second). */
const REAP_WAITS = 50;
/** The most processes (threads count: a node program has about ten) the agent's uid may have at once. */
const DEFAULT_AGENT_MAX_PROCESSES = 4096;
/** The lowest cap an agent can work under: its CLI, a shell and a test runner, with their threads. */
const MIN_AGENT_MAX_PROCESSES = 32;
/** Where every user may write outside the work tree: what the agent's uid leaves there is removed at the end. */
const SHARED_TEMP_FOLDERS = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock', '/dev/mqueue'];
/** The longest the removal of the agent's files from SHARED_TEMP_FOLDERS may take, in seconds. */
const SWEEP_SECONDS = 120;
/** Another run on this machine holds the agent's user. */
class UserBusy extends Error {
    pid;
    constructor(pid) {
        super(`held by pid ${pid}`);
        this.pid = pid;
    }
}
/** Users the default name may take when another run holds it: ralph-agent, ralph-agent-2, … */
const DEFAULT_USERS = 8;
/** This process as a holder of the agent's user: its pid and start time (a reused pid is not it). */
const thisHolder = () => `${process.pid}:${processIdentity(process.pid) ?? ''}`;
/** Isolation could not be set up: the message is one line that says why and what to do. */
class IsolationError extends Error {
    constructor(message) {
        super(message);
        this.name = 'IsolationError';
    }
}
/** Whether this process can start programs as another user: as root, or with passwordless sudo. */
function isolationPrivilege() {
    if (process.platform !== 'linux')
        return { why: `running the agent as its own user needs Linux (this is ${process.platform})` };
    for (const tool of ['setpriv', 'prlimit'])
        if (!which(tool, { cwd: '/', path: SYSTEM_PATH }))
            return { why: `${tool} (util-linux) is not installed` };
    if (process.getuid?.() === 0)
        return { privilege: 'root' };
    const me = `ralph-action runs as ${(0,external_node_os_namespaceObject.userInfo)().username} (uid ${process.getuid?.()}), not as root`;
    if (!which('sudo', { cwd: '/', path: SYSTEM_PATH }))
        return { why: `${me}, and sudo is not installed` };
    const probe = (0,external_node_child_process_namespaceObject.spawnSync)('sudo', ['-n', 'true'], { env: SYSTEM_ENV, stdio: 'ignore', timeout: 20_000 });
    if (probe.status !== 0)
        return { why: `${me}, and without passwordless sudo` };
    return { privilege: 'sudo' };
}
/** argv that runs `argv` as root: itself when we are root, else through `sudo -n`. */
const asRoot = (privilege, argv) => privilege === 'root' ? argv : [trustedProgram('sudo', true), '-n', '--', ...argv];
/**
 * argv that runs `argv` as the agent's user, with no groups and no way to gain privileges (setuid, sudo). With
 * `maxProcesses`, the uid's processes are capped (RLIMIT_NPROC, soft and hard, set by root before the switch):
 * a fork loop fails at the cap instead of exhausting the machine. The kills go without it: at the cap, a
 * capped exec as that uid would fail (EAGAIN).
 */
function asAgent(state, argv, maxProcesses) {
    const { uid, gid } = state.user;
    return asRoot(state.privilege, [
        ...(maxProcesses === undefined
            ? []
            : [trustedProgram('prlimit', true), `--nproc=${maxProcesses}:${maxProcesses}`, '--']),
        trustedProgram('setpriv', true),
        `--reuid=${uid}`,
        `--regid=${gid}`,
        '--clear-groups',
        '--no-new-privs',
        '--',
        ...argv
    ]);
}
/** Runs the privileged script (as root); answers its output lines, or throws IsolationError with its error. */
async function privileged(privilege, args) {
    const result = await runProcess({
        argv: asRoot(privilege, [trustedProgram('bash', true), '-s', '--', ...args]),
        cwd: '/',
        env: SYSTEM_ENV,
        input: PRIVILEGED,
        // A step never waits forever (a chown of a large work tree takes a while; a stalled one is cut).
        timeoutMs: 600_000
    });
    const out = result.stdout.head.toString('utf8') + result.stdout.tail.toString('utf8');
    const lines = out.split('\n').filter(Boolean);
    const error = lines.find(line => line.startsWith('error '));
    if (error)
        throw new IsolationError(error.slice('error '.length));
    const busy = lines.find(line => line.startsWith('busy '));
    if (busy)
        throw new UserBusy(Number(busy.slice('busy '.length)));
    if (result.exitCode !== 0) {
        const why = result.spawnError?.message ?? result.stderr.head.toString('utf8').trim().split('\n')[0];
        throw new IsolationError(`the isolation's ${args[0]} step failed (exit ${result.exitCode}): ${why}`);
    }
    return lines;
}
const inside = (child, parent) => {
    const rel = external_node_path_default().relative(parent, child);
    return rel === '' || (!rel.startsWith('..') && !external_node_path_default().isAbsolute(rel));
};
/**
 * Creates the agent's user (first use), gives it a fresh HOME and the work tree, and answers the isolation.
 * Throws IsolationError (one line) when the user or the work tree cannot be set up.
 */
async function isolateAgent(options) {
    const name = options.user ?? DEFAULT_AGENT_USER;
    // The default name stands for any of ours: a run that finds it held takes the next one.
    const names = name === DEFAULT_AGENT_USER
        ? Array.from({ length: DEFAULT_USERS }, (_, i) => (i === 0 ? name : `${name}-${i + 1}`))
        : [name];
    for (const [i, candidate] of names.entries()) {
        try {
            return await isolateAs(candidate, options);
        }
        catch (error) {
            if (!(error instanceof UserBusy))
                throw error;
            if (i === names.length - 1)
                throw new IsolationError(names.length > 1
                    ? `The agent's users ${name} to ${candidate} are all held by other runs on this machine (the last by pid ${error.pid}): give this run a user of its own with agent-user (the action) or --agent-user (the CLI).`
                    : `The agent's user ${name} is held by another run on this machine (pid ${error.pid}): give this run a user of its own with agent-user (the action) or --agent-user (the CLI).`);
            options.log?.(`The agent's user ${candidate} is held by another run (pid ${error.pid}): trying ${names[i + 1]}.`);
        }
    }
    throw new IsolationError('no agent user was tried');
}
async function isolateAs(name, options) {
    if (!AGENT_USER_NAME.test(name))
        throw new IsolationError(`'${name}' cannot be the agent's user: use lower-case letters, digits, - and _, starting with a letter.`);
    const workTree = external_node_path_default().resolve(options.workTree);
    const maxProcesses = options.maxProcesses ?? DEFAULT_AGENT_MAX_PROCESSES;
    if (!Number.isInteger(maxProcesses) || maxProcesses < 1)
        throw new IsolationError(`The agent's process cap must be a positive whole number, got ${maxProcesses}.`);
    const paths = [workTree, ...(options.reach ?? []), options.program ?? '', HOMES];
    if (paths.some(p => /[\n\r]/.test(p)))
        throw new IsolationError('A path for the isolation holds a line break; move the work tree.');
    if (workTree === '/')
        throw new IsolationError('The work tree is /: the agent cannot be given all of it.');
    for (const other of options.outside ?? [])
        if (other && inside(external_node_path_default().resolve(other), workTree))
            throw new IsolationError(`${other} is inside the work tree ${workTree}: the agent's user would be given it. Check out the repository in a folder of its own.`);
    const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const home = `${HOMES}/${name}`;
    const holder = thisHolder();
    // Staged by the action's own user (it reads its own files as itself), copied in by prepare as root.
    const staged = stageSettings(options.settings ?? []);
    if (staged.dir && /[\n\r]/.test(staged.dir))
        throw new IsolationError('A path for the isolation holds a line break; set TMPDIR elsewhere.');
    let lines;
    try {
        lines = await privileged(options.privilege, [
            'prepare',
            name,
            home,
            workTree,
            String(owner.uid),
            (process.getgroups?.() ?? [owner.gid]).join(','),
            options.program ?? '',
            staged.dir ?? '',
            holder,
            ...(options.reach ?? [])
        ]);
    }
    finally {
        if (staged.dir)
            (0,external_node_fs_namespaceObject.rmSync)(staged.dir, { recursive: true, force: true });
    }
    for (const copied of staged.copied)
        options.log?.(`The agent's user gets a copy of ${copied}.`);
    for (const skipped of staged.skipped)
        options.log?.(`Left out of the copy of the agent's settings: ${skipped}.`);
    const repointed = {};
    for (const { variable, from, to } of options.settings ?? [])
        if (variable)
            repointed[variable] = { from, to: external_node_path_default().join(home, to) };
    const field = (key) => (lines.find(line => line.startsWith(`${key} `)) ?? '').split(' ').slice(1);
    const [uid, gid] = field('user').map(Number);
    const [topGid, topMode] = field('top');
    const opened = lines
        .filter(line => line.startsWith('opened '))
        .map(line => {
        const [, mode, ...rest] = line.split(' ');
        return { mode, path: rest.join(' ') };
    });
    const state = {
        user: { name, uid, gid, home },
        holder,
        privilege: options.privilege,
        workTree,
        owner,
        top: { gid: Number(topGid), mode: topMode },
        opened,
        repointed,
        maxProcesses
    };
    if (!Number.isInteger(uid) || uid <= 0 || topMode === undefined)
        throw new IsolationError(`the isolation's prepare step gave no user: ${lines.join('; ')}`);
    return isolation(state, options.log);
}
/** The isolation a saved state describes (post, after main was killed, releases it with this). */
function isolation(state, log) {
    const said = new Set();
    const signaller = agentSignaller(state);
    let running = 0;
    let reaped = [];
    const command = (argv, env) => {
        const agentEnv = agentUserEnvironment(env, state.user, state.repointed);
        // As root, setpriv hands the environment on as it is: no launcher, no copy in an argv.
        const cap = state.maxProcesses ?? DEFAULT_AGENT_MAX_PROCESSES;
        if (state.privilege === 'root')
            return { argv: asAgent(state, argv, cap), env: agentEnv, stdin: Buffer.alloc(0) };
        // sudo resets the environment (env_reset, secure_path): it travels on stdin, to the launcher.
        const entries = [];
        for (const [key, value] of Object.entries(agentEnv)) {
            if (value === undefined)
                continue;
            if (IDENTIFIER.test(key))
                entries.push(`${key}=${value}\0`);
            else if (!said.has(key)) {
                said.add(key);
                log?.(`The variable ${key} cannot be passed to the agent's user through sudo (not a shell name); it is left out.`);
            }
        }
        return {
            argv: asAgent(state, [...BASH, LAUNCHER, 'ralph-agent', ...argv], cap),
            env: SYSTEM_ENV,
            stdin: Buffer.from(`${entries.join('')}\0`)
        };
    };
    const killLive = async () => {
        const found = new Set();
        for (let round = 0; round < KILL_ROUNDS; round++) {
            const pids = processesOf(state.user.uid);
            if (pids.length === 0)
                return [...found];
            for (const pid of pids) {
                if (!found.has(pid))
                    reaped.push(pid);
                found.add(pid);
            }
            const [program, ...args] = asAgent(state, [...BASH, KILL_ALL]);
            (0,external_node_child_process_namespaceObject.spawnSync)(program, args, { env: SYSTEM_ENV, stdio: 'ignore', timeout: 20_000 });
            // SIGKILL lands at once, but a process leaves /proc only once it is reaped.
            if (round > 0)
                await (0,promises_namespaceObject.setTimeout)(20);
        }
        const left = processesOf(state.user.uid);
        if (left.length > 0)
            throw new IsolationError(`processes of ${state.user.name} survived ${KILL_ROUNDS} rounds of SIGKILL (pid ${left.join(', ')})`);
        return [...found];
    };
    const killAll = async () => {
        const found = await killLive();
        // The dead count against the cap until reaped: the next program would find a fork loop's share still taken.
        for (let wait = 0; wait < REAP_WAITS && zombiesOf(state.user.uid).length > 0; wait++)
            await (0,promises_namespaceObject.setTimeout)(100);
        return found;
    };
    const run = async (options) => {
        const env = options.env ?? process.env;
        // As run directly: a program that is not there is not started (the loop says which one is missing).
        if (!which(options.argv[0] ?? '', { cwd: options.cwd, path: env.PATH }))
            return notFound(options);
        const agent = command(options.argv, env);
        const input = agent.stdin.length === 0
            ? options.input
            : Buffer.concat([
                agent.stdin,
                options.input === undefined ? Buffer.alloc(0) : Buffer.from(options.input)
            ]);
        running++;
        let exited = false;
        let killing;
        // Once the last program has exited, what it left (holding its output open, or not) is killed at once.
        const ended = () => {
            if (exited)
                return;
            exited = true;
            if (--running === 0)
                killing = killAll();
        };
        try {
            return await runProcess({
                ...options,
                argv: agent.argv,
                env: agent.env,
                ...(input !== undefined ? { input } : {}),
                signaller,
                onExit: () => {
                    ended();
                    options.onExit?.();
                }
            });
        }
        finally {
            ended();
            // Nothing of the uid survives the program's end (a kill started at its exit is waited for).
            if (killing)
                await killing;
            else if (running === 0)
                await killAll();
        }
    };
    const release = async () => {
        const problems = [];
        // Held first (post takes over from a killed main): a run that took the user since is left alone.
        const holder = thisHolder();
        try {
            await privileged(state.privilege, ['claim', state.user.name, holder, state.holder]);
        }
        catch (error) {
            if (error instanceof UserBusy)
                return [
                    `the agent's user ${state.user.name} is held by another run (pid ${error.pid}) since this one ended: its processes and HOME are that run's, left alone`
                ];
            return [error.message];
        }
        try {
            await killAll();
        }
        catch (error) {
            // The work tree is not handed back while a process of the agent's user could still race the chown.
            return [error.message];
        }
        const { user, owner, top, workTree } = state;
        try {
            const lines = await privileged(state.privilege, [
                'release',
                String(user.uid),
                user.home,
                workTree,
                String(owner.uid),
                String(owner.gid),
                String(top.gid),
                top.mode,
                user.name,
                holder,
                String(SWEEP_SECONDS),
                SHARED_TEMP_FOLDERS.join(':'),
                ...state.opened.flatMap(o => [o.mode, o.path])
            ]);
            for (const line of lines)
                if (line.startsWith('problem '))
                    problems.push(line.slice('problem '.length));
            const swept = lines.find(line => line.startsWith('swept '));
            const n = Number(swept?.slice('swept '.length) ?? 0);
            // Said when there were any (none is the usual case, and the CLI keeps its stderr for what matters).
            if (n > 0)
                log?.(`Removed ${n} file${n === 1 ? '' : 's'} the agent's user ${user.name} left outside the work tree (in ${SHARED_TEMP_FOLDERS.join(', ')}; its HOME is removed whole).`);
        }
        catch (error) {
            problems.push(error.message);
        }
        return problems;
    };
    const lend = async (dir) => {
        const target = external_node_path_default().resolve(dir);
        if (/[\n\r]/.test(target))
            throw new IsolationError('A path for the isolation holds a line break; set TMPDIR elsewhere.');
        const { uid, gid, name } = state.user;
        const lines = await privileged(state.privilege, ['lend', String(uid), String(gid), target, name]);
        const opened = lines
            .filter(line => line.startsWith('opened '))
            .map(line => {
            const [, mode, ...rest] = line.split(' ');
            return { mode, path: rest.join(' ') };
        });
        return async () => {
            try {
                await killAll();
            }
            catch (error) {
                return [error.message];
            }
            try {
                const back = await privileged(state.privilege, [
                    'reclaim',
                    String(uid),
                    target,
                    String(state.owner.uid),
                    String(state.owner.gid),
                    // The deepest first: a folder is closed again after those below it.
                    ...opened.reverse().flatMap(o => [o.mode, o.path])
                ]);
                return back.filter(line => line.startsWith('problem ')).map(line => line.slice('problem '.length));
            }
            catch (error) {
                return [error.message];
            }
        };
    };
    return {
        state,
        user: state.user,
        lend,
        command,
        environment: env => agentUserEnvironment(env, state.user, state.repointed),
        signaller,
        runProcess: run,
        killAll,
        leftovers: () => {
            const pids = reaped;
            reaped = [];
            return pids;
        },
        release
    };
}
/** The result of a program that could not be found: nothing started (as proc answers ENOENT). */
function notFound(options) {
    const program = options.argv[0] ?? '';
    if (options.logFile) {
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(options.logFile), { recursive: true });
        (0,external_node_fs_namespaceObject.appendFileSync)(options.logFile, '');
    }
    const none = { head: Buffer.alloc(0), tail: Buffer.alloc(0), totalBytes: 0, truncated: false };
    const spawnError = Object.assign(new Error(`spawn ${program} ENOENT`), {
        code: 'ENOENT',
        errno: -2,
        syscall: `spawn ${program}`,
        path: program
    });
    return {
        exitCode: null,
        signal: null,
        timedOut: false,
        aborted: false,
        spawnError,
        stdout: none,
        stderr: none,
        durationMs: 0
    };
}
/**
 * The agent's environment as its own user: its own HOME, USER and LOGNAME; nothing that points into the
 * runner's HOME (XDG_*, a global git config) or at the runner's file commands; a variable that named the CLI's
 * settings (`repointed`) names their copy.
 */
function agentUserEnvironment(env, user, repointed = {}) {
    const out = {};
    for (const [key, value] of Object.entries(env)) {
        if (value === undefined || key.startsWith('XDG_') || key.startsWith('SUDO_'))
            continue;
        if (env_RUNNER_FILE_COMMANDS.includes(key))
            continue;
        // PWD stays: the loop sets it to the work tree for the agent (opencode works where PWD says).
        if (['GIT_CONFIG_GLOBAL', 'OLDPWD', 'MAIL'].includes(key))
            continue;
        out[key] = value;
    }
    // Only while it still names what was copied: a folder of the run's own (the model proxy's) stays as it is.
    for (const [key, { from, to }] of Object.entries(repointed))
        if (out[key] !== undefined && external_node_path_default().resolve(out[key]) === from)
            out[key] = to;
    return { ...out, HOME: user.home, USER: user.name, LOGNAME: user.name };
}
/** Signals as the action where it may (its own sudo), and as the agent's user for the agent's processes. */
function agentSignaller(state) {
    return (pids, sig) => {
        const denied = [];
        for (const pid of pids) {
            try {
                process.kill(pid, sig);
            }
            catch (error) {
                if (error.code === 'EPERM')
                    denied.push(pid);
            }
        }
        if (denied.length === 0)
            return;
        const argv = asAgent(state, [...BASH, SIGNAL, sig, ...denied.map(String)]);
        (0,external_node_child_process_namespaceObject.spawnSync)(argv[0], argv.slice(1), { env: SYSTEM_ENV, stdio: 'ignore', timeout: 20_000 });
    };
}
/** Reused by processesOf: the head of a /proc/<pid>/status (State and Uid are in its first ten lines). */
const statusBuffer = Buffer.alloc(1024);
/** The start of /proc/<pid>/status in one read (readFileSync cannot trust the size /proc reports). */
function statusHead(pid) {
    const fd = (0,external_node_fs_namespaceObject.openSync)(`/proc/${pid}/status`, 'r');
    try {
        return statusBuffer.toString('latin1', 0, (0,external_node_fs_namespaceObject.readSync)(fd, statusBuffer, 0, statusBuffer.length, null));
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/**
 * Live (not zombie) processes whose real, effective or saved uid is `uid`. From /proc/<pid>/status, never
 * from the owner of /proc/<pid>: a process that makes itself non-dumpable shows as root's there.
 */
function processesOf(uid) {
    return scanProcesses(uid, false);
}
/** Zombies of `uid`: dead, but counted against its RLIMIT_NPROC until their parent (often init) reaps them. */
function zombiesOf(uid) {
    return scanProcesses(uid, true);
}
function scanProcesses(uid, zombies) {
    const pids = [];
    let names;
    try {
        names = (0,external_node_fs_namespaceObject.readdirSync)('/proc');
    }
    catch {
        return pids;
    }
    for (const name of names) {
        if (!/^\d+$/.test(name))
            continue;
        let status;
        try {
            status = statusHead(name);
        }
        catch {
            continue; // exited meanwhile
        }
        const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status);
        if (!uids || /^State:\s+[ZX]/m.test(status) !== zombies)
            continue;
        if (uids.slice(1).some(u => Number(u) === uid))
            pids.push(Number(name));
    }
    return pids;
}

;// CONCATENATED MODULE: ./src/security/runner-files.ts
// The runner's file commands (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STATE, GITHUB_STEP_SUMMARY):
// whoever appends to them steers every later step, this action's post step included (an LD_PRELOAD in
// GITHUB_ENV runs in a process that holds the tokens). Their variables never reach the loop's processes;
// meanwhile the files are closed to other users (the agent's, with isolation), and what a process of our own
// user wrote into them during the loop is cut back afterwards.


/** Remembers the files named by the job's GITHUB_ENV & co.; with `close`, no other user may read them meanwhile. */
function guardRunnerFiles(env, options) {
    const saved = [];
    for (const name of RUNNER_FILE_COMMANDS) {
        const file = env[name];
        if (!file)
            continue;
        try {
            const mode = statSync(file).mode & 0o7777;
            saved.push({ name, file, content: readFileSync(file), mode });
            if (options.close)
                chmodSync(file, mode & 0o700);
        }
        catch {
            // Not there (a runner that does not set it, or a local run): nothing to guard.
        }
    }
    return {
        restore: () => {
            const changed = [];
            for (const { name, file, content, mode } of saved) {
                let now;
                try {
                    now = readFileSync(file);
                }
                catch {
                    now = undefined;
                }
                if (!now || !now.equals(content)) {
                    writeFileSync(file, content);
                    const added = now && now.subarray(0, content.length).equals(content) ? now.length - content.length : 0;
                    changed.push(added > 0
                        ? `${added} bytes appended to ${name} during the loop were cut back`
                        : `${name} was changed during the loop and was put back as it was`);
                }
                try {
                    chmodSync(file, mode);
                }
                catch {
                    // Gone meanwhile: written again above.
                }
            }
            return changed;
        }
    };
}

;// CONCATENATED MODULE: ./src/security/index.ts
// One security policy: which variables are secret, the agent's environment, the hermetic git environment,
// the agent's own user (its spawn, and killing everything it left), and the workflow commands it may not print.






;// CONCATENATED MODULE: ./src/loop/agent.ts
// One agent run: the prompt on stdin, cwd = the work tree, the preset reading its output as it arrives
// (usage → the cost meter, live), logs written as they come, the whole tree killed when the run must stop.





/** Characters of the final message kept in the record. */
const FINAL_MESSAGE_CHARS = 2000;
function crashMessage(agent, error, fromRalphFile) {
    if (error.code === 'ENOENT')
        return `Agent command not found: ${pyStrRepr(agent)}.${fromRalphFile ? " Check the 'agent' field in your RALPH.md frontmatter." : ''}`;
    if (error.code === 'EACCES')
        return `[Errno 13] Permission denied: ${pyStrRepr(error.path ?? agent)}`;
    return `The agent could not be started: ${error.message}`;
}
/** A log file written synchronously: bounded memory, and nothing lost when the process dies. */
class SyncLog {
    file;
    fd;
    constructor(file) {
        this.file = file;
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(file), { recursive: true });
        this.fd = (0,external_node_fs_namespaceObject.openSync)(file, 'a');
    }
    write(data) {
        if (this.fd === undefined)
            return;
        if (typeof data === 'string')
            (0,external_node_fs_namespaceObject.writeSync)(this.fd, data);
        else
            (0,external_node_fs_namespaceObject.writeSync)(this.fd, data);
    }
    close() {
        if (this.fd !== undefined)
            (0,external_node_fs_namespaceObject.closeSync)(this.fd);
        this.fd = undefined;
    }
}
/** The agent's log of an iteration: every byte it printed (its transcript for JSON-stream presets). */
const agentLogFile = (iterationDir) => external_node_path_default().join(iterationDir, 'agent.log');
async function runAgent(ctx) {
    const argv = ctx.preset.argv(ctx.agentArgv, ctx.caps);
    const logFile = agentLogFile(ctx.iterationDir);
    const streamFile = external_node_path_default().join(ctx.iterationDir, 'agent.jsonl');
    const log = ctx.preset.jsonStream ? new SyncLog(logFile) : undefined;
    const stream = ctx.preset.jsonStream ? new SyncLog(streamFile) : undefined;
    // The job's environment without GitHub and Actions credentials: the agent never holds a write token.
    // PWD names the work tree, as a shell's cd would: opencode trusts PWD over its real working directory,
    // and the inherited one names the folder the loop was started in.
    const env = { ...agentEnvironment(ctx.baseEnv ?? process.env, ctx.agentEnv), PWD: ctx.workTree };
    ctx.meter.beginRun();
    const reader = ctx.preset.read(ctx.prompt, {
        onUsage: usage => ctx.meter.observe(usage),
        onTranscript: line => {
            log?.write(line.endsWith('\n') ? line : `${line}\n`);
            ctx.onOutput?.({ transcript: line });
        }
    }, { argv, env: ctx.agentEnvironment?.(env) ?? env, cwd: ctx.workTree });
    let result;
    let outcome;
    try {
        const options = {
            argv,
            cwd: ctx.workTree,
            env: reader.env ? { ...env, ...reader.env } : env,
            input: ctx.prompt,
            killGraceMs: ctx.killGraceMs,
            signal: ctx.signal,
            timeoutMs: ctx.timeoutMs,
            ...(ctx.outputRoom ? { outputRoom: ctx.outputRoom } : {}),
            onStdout: chunk => {
                stream?.write(chunk);
                reader.stdout(chunk);
                ctx.onOutput?.({ stream: 'stdout', chunk });
            },
            onStderr: chunk => {
                log?.write(chunk);
                reader.stderr(chunk);
                ctx.onOutput?.({ stream: 'stderr', chunk });
            }
        };
        // Plain agents: proc streams stdout and stderr to agent.log in arrival order.
        if (!ctx.preset.jsonStream)
            options.logFile = logFile;
        result = await ctx.runProcess(options);
        // Before the logs close: finishing may still write the transcript's last line (opencode's [done]).
        outcome = reader.finish(decodeCaptured(result.stdout, { translateNewlines: true }), {
            code: result.exitCode,
            signal: result.signal,
            killed: result.aborted || result.timedOut
        });
    }
    finally {
        log?.close();
        stream?.close();
    }
    const usage = ctx.meter.endRun(outcome.usage);
    const killedBy = result.aborted ? ctx.stopCause() : undefined;
    const exitedWell = result.exitCode === 0 && !result.timedOut && !result.aborted && !result.spawnError;
    const run = {
        preset: ctx.preset.name,
        argv,
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut,
        // Judged by the agent's own word too: claude says is_error with exit code 0 and subtype "success".
        success: exitedWell && outcome.isError !== true && outcome.failure === undefined,
        durationMs: Math.round(result.durationMs),
        usage,
        log: ctx.relative(logFile),
        notes: outcome.notes
    };
    if (killedBy)
        run.killedBy = killedBy;
    if (outcome.finalMessage !== undefined)
        run.finalMessage = outcome.finalMessage.slice(-FINAL_MESSAGE_CHARS);
    if (outcome.isError !== undefined)
        run.isError = outcome.isError;
    if (outcome.failure) {
        const { resetsAt, ...failure } = outcome.failure;
        run.failure =
            resetsAt !== undefined ? { ...failure, resetsAt: new Date(resetsAt).toISOString() } : failure;
    }
    if (outcome.permissionDenials?.length)
        run.permissionDenials = outcome.permissionDenials;
    if (outcome.apiRetries)
        run.apiRetries = outcome.apiRetries;
    if (ctx.preset.jsonStream)
        run.stream = ctx.relative(streamFile);
    const agentResult = { run, outcome };
    if (result.spawnError)
        agentResult.crash = crashMessage(ctx.agent, result.spawnError, ctx.fromRalphFile === true);
    return agentResult;
}

;// CONCATENATED MODULE: ./src/loop/checks.ts
// Gates: each check runs with `bash -c` in the work tree the agent left; exit 0 = pass. Output streams to
// its log file; only the tail is read back (from the log, so memory stays bounded whatever it prints).





/** Characters of a check's output kept for the prompt and the record. */
const CHECK_TAIL_CHARS = 2000;
/** Bytes read back from the end of a check's log for the fingerprint (a few KiB is plenty). */
const CHECK_FINGERPRINT_BYTES = 16 * 1024;
/** The last `bytes` of a file, decoded, without a character split by the cut. */
function readFileTail(file, bytes) {
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(file, 'r');
    }
    catch {
        return '';
    }
    try {
        const size = (0,external_node_fs_namespaceObject.fstatSync)(fd).size;
        const length = Math.min(size, bytes);
        const buf = Buffer.alloc(length);
        (0,external_node_fs_namespaceObject.readSync)(fd, buf, 0, length, size - length);
        let start = 0;
        while (length === bytes && start < 3 && start < buf.length && (buf[start] & 0xc0) === 0x80)
            start++;
        return buf.subarray(start).toString('utf8');
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** Appended to a check's output (and log) when it ran out of time. */
const checkTimeoutMarker = (name, seconds) => `\n\n[Check '${name}' timed out after ${formatDuration(seconds)} — output may be incomplete]\n`;
/**
 * Runs `$1` with bash in an empty HOME of its own (and no Python user site), removed afterwards; a gate killed
 * by a signal ends by the same signal.
 */
const FRESH_HOME = [
    'h=$(mktemp -d "${TMPDIR:-/tmp}/ralph-gate-home.XXXXXX") || exit 125',
    'export HOME="$h" XDG_CONFIG_HOME="$h/.config" XDG_CACHE_HOME="$h/.cache" XDG_DATA_HOME="$h/.local/share"',
    // No user site, and Python's compiled files kept in the fresh HOME: a .pyc planted in __pycache__ is not read.
    'export PYTHONNOUSERSITE=1 PYTHONPYCACHEPREFIX="$h/.pycache"',
    'bash -c "$1"; s=$?',
    'rm -rf -- "$h"',
    'if [ "$s" -gt 128 ] && [ "$s" -lt 160 ]; then trap - "$((s - 128))" 2>/dev/null; kill -s "$((s - 128))" $$; fi',
    'exit "$s"'
].join('\n');
/** One gate, run to its end (or its kill): its record, and its output's end for the fingerprint. */
async function runCheck(check, index, log, ctx) {
    const result = await ctx.runProcess({
        argv: ctx.freshHome ? ['bash', '-c', FRESH_HOME, 'ralph-gate', check.run] : ['bash', '-c', check.run],
        cwd: ctx.workTree,
        timeoutMs: check.timeout * 1000,
        killGraceMs: ctx.killGraceMs,
        signal: ctx.signal,
        // The log has every byte; the capture only stands in when the log could not be written.
        captureLimit: 64 * 1024,
        logFile: log
    });
    if (result.timedOut)
        (0,external_node_fs_namespaceObject.appendFileSync)(log, checkTimeoutMarker(check.name, check.timeout));
    if (result.spawnError)
        (0,external_node_fs_namespaceObject.appendFileSync)(log, `check could not be started: ${result.spawnError.message}\n`);
    let output = translateNewlines(result.logError
        ? combineOutput(decodeCaptured(result.stdout), decodeCaptured(result.stderr))
        : readFileTail(log, CHECK_FINGERPRINT_BYTES));
    if (result.logError && result.timedOut)
        output += checkTimeoutMarker(check.name, check.timeout);
    let passed = result.exitCode === 0 && !result.timedOut && !result.aborted;
    const counted = result.timedOut || result.aborted
        ? undefined
        : ctx.countTests?.(index, log, result.logError ? output : undefined, passed);
    if (counted?.problem) {
        // The line is the gate's own output: the next prompt, the fingerprint and the log all have it.
        if (!result.logError)
            (0,external_node_fs_namespaceObject.appendFileSync)(log, `\n${counted.problem}\n`);
        output += `\n${counted.problem}\n`;
        passed = false;
    }
    const run = {
        name: check.name,
        run: check.run,
        passed,
        exitCode: result.exitCode,
        ...(result.signal ? { signal: result.signal } : {}),
        timedOut: result.timedOut,
        durationMs: Math.round(result.durationMs),
        outputBytes: result.stdout.totalBytes + result.stderr.totalBytes,
        tail: output.slice(-CHECK_TAIL_CHARS),
        log: ctx.relative(log),
        ...(counted?.tests ? { tests: counted.tests } : {})
    };
    if (result.aborted) {
        const cause = ctx.stopCause();
        if (cause)
            run.killedBy = cause;
    }
    ctx.onCheck?.(run);
    return { run, output, aborted: result.aborted };
}
/**
 * Runs every gate (all of them, so the agent hears of every failure) unless the run must stop: one after
 * another, or all at once with `parallel` (each with its own log; the results in the order declared).
 */
async function runChecks(checks, ctx) {
    const started = external_node_perf_hooks_namespaceObject.performance.now();
    const outcome = { runs: [], failures: [], interrupted: false, wallMs: 0 };
    const logs = logFiles(checks, external_node_path_default().join(ctx.iterationDir, ctx.folder ?? 'checks'));
    const results = [];
    if (ctx.parallel && !ctx.signal.aborted) {
        // The guard's signal reaches every gate: a budget or a cancel kills all of their trees at once.
        results.push(...(await Promise.all(checks.map((check, i) => runCheck(check, i, logs[i], ctx)))));
    }
    else {
        for (const [i, check] of checks.entries()) {
            if (ctx.signal.aborted)
                break;
            const result = await runCheck(check, i, logs[i], ctx);
            results.push(result);
            if (result.aborted)
                break;
        }
    }
    for (const { run, output } of results) {
        outcome.runs.push(run);
        if (!run.passed)
            outcome.failures.push({ name: run.name, output });
    }
    outcome.interrupted = results.length < checks.length || results.some(result => result.aborted);
    outcome.wallMs = Math.round(external_node_perf_hooks_namespaceObject.performance.now() - started);
    return outcome;
}
/** One log a gate, `checks/<name>.log`: names that read the same once made safe get a `-2`, `-3`… */
function logFiles(checks, dir) {
    const taken = new Set();
    return checks.map(check => {
        const base = safeFileName(check.name);
        let name = base;
        for (let n = 2; taken.has(name); n++)
            name = `${base}-${n}`;
        taken.add(name);
        return external_node_path_default().join(dir, `${name}.log`);
    });
}
/** Check names come from users (CLI `--check CMD` may name them after the command): keep file names safe. */
function safeFileName(name) {
    return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'check';
}

;// CONCATENATED MODULE: ./src/loop/commands.ts
// The ralph's commands, run as the reference runs them: in order, all of them, no shell, args quoted into
// the run string, `./` → the ralph's folder, output = stdout then stderr, the timeout marker appended.
// We differ where the reference is unsafe: the whole process tree is killed, and output above the cap
// reaches the prompt cut in the middle (the log keeps every byte).



const FIELD_HINT = "Check the 'commands' field in your RALPH.md frontmatter.";
/** Middle-cut marker, the same as proc's for a truncated capture. */
const cutMarker = (droppedBytes) => `\n[... ${droppedBytes} bytes omitted ...]\n`;
/** Keeps `text` when it fits in `cap` bytes, else its first and last halves around a marker. */
function capOutput(text, cap) {
    const bytes = Buffer.byteLength(text);
    if (bytes <= cap)
        return { text, cut: false };
    const buf = Buffer.from(text);
    const half = Math.floor(cap / 2);
    // Decoding drops a character split by the cut (as replacement characters would confuse the agent).
    const head = buf
        .subarray(0, half)
        .toString('utf8')
        .replace(/\uFFFD$/, '');
    const tail = buf
        .subarray(buf.length - (cap - half))
        .toString('utf8')
        .replace(/^\uFFFD/, '');
    const dropped = bytes - Buffer.byteLength(head) - Buffer.byteLength(tail);
    return { text: head + cutMarker(dropped) + tail, cut: true };
}
function commands_crashMessage(command, runString, error) {
    if (error.code === 'ENOENT')
        return commandNotFound(command.name, runString);
    if (error.code === 'EACCES')
        return `[Errno 13] Permission denied: ${pyStrRepr(error.path ?? runString)}`;
    return `Command '${command.name}' could not be started: ${error.message}`;
}
/** Runs every command of the iteration; stops early only when the run must stop or a command crashes. */
async function runCommands(commands, ctx) {
    const outcome = { outputs: {}, runs: [], interrupted: false };
    // Each arg's value in the environment too: the safe way for a script to read one.
    const extraEnv = argEnvironment(ctx.userArgs);
    for (const command of commands) {
        if (ctx.signal.aborted) {
            outcome.interrupted = true;
            break;
        }
        const runString = resolveArgsInRun(command.run, ctx.userArgs);
        let argv;
        try {
            argv = shlex_shlexSplit(runString);
        }
        catch {
            argv = [];
        }
        if (argv.length === 0) {
            outcome.crash = `Command '${command.name}' has invalid syntax: ${pyStrRepr(runString)}. ${FIELD_HINT}`;
            break;
        }
        const cwd = runsFromRalphDir(runString) ? ctx.ralphDir : ctx.workTree;
        const log = external_node_path_default().join(ctx.iterationDir, 'commands', `${command.name}.log`);
        const result = await ctx.runProcess({
            argv,
            cwd,
            extraEnv,
            timeoutMs: command.timeout * 1000,
            killGraceMs: ctx.killGraceMs,
            signal: ctx.signal,
            captureLimit: ctx.outputCap,
            logFile: log
        });
        if (result.spawnError) {
            outcome.crash = commands_crashMessage(command, runString, result.spawnError);
            break;
        }
        const decode = { translateNewlines: true };
        let text = combineOutput(decodeCaptured(result.stdout, decode), decodeCaptured(result.stderr, decode));
        if (result.timedOut)
            text += timeoutMarker(command.name, command.timeout);
        const capped = capOutput(text, ctx.outputCap);
        outcome.outputs[command.name] = capped.text;
        const run = {
            name: command.name,
            run: runString,
            argv,
            cwd,
            exitCode: result.exitCode,
            ...(result.signal ? { signal: result.signal } : {}),
            timedOut: result.timedOut,
            durationMs: Math.round(result.durationMs),
            outputBytes: result.stdout.totalBytes + result.stderr.totalBytes,
            cut: capped.cut || result.stdout.truncated || result.stderr.truncated,
            log: ctx.relative(log)
        };
        outcome.runs.push(run);
        ctx.onCommand?.(run);
        if (result.aborted) {
            outcome.interrupted = true;
            break;
        }
    }
    return outcome;
}

;// CONCATENATED MODULE: ./src/loop/completion.ts
// Did the agent say it is done? Read from its final message only, with a rule strict enough that a
// quoted, negated or echoed mention of the tag never ends a loop.
//
// THE TAG RULE. An occurrence of `<promise>TAG</promise>` (whitespace allowed around TAG, TAG compared
// exactly) counts only when all of these hold:
//   1. it is outside fenced code blocks (``` or ~~~) and not on a blockquote line (`> …`);
//   2. it is not inside an inline code span (an odd number of backticks before it on its line) and not
//      wrapped in quotes (a quote character right before or right after it: " ' “ ” ‘ ’ « »);
//   3. and either
//      a. it stands alone on its line (only whitespace around it, optionally a final `.` or `!`), or
//      b. it ends the message (nothing but whitespace, `.` or `!` after it) and the sentence it ends (the
//         text before it on its line, after the last `.`, `!`, `?` or `;` followed by a space) holds no
//         negation word (not, no, never, without, until, unless, cannot, nor, …n't).
// So "No test fails now. <promise>COMPLETE</promise>" counts, while "I will not output
// <promise>COMPLETE</promise> yet" and "I won't print <promise>COMPLETE</promise>" do not.
//
// THE STATUS BLOCK RULE (ported ralphs). A block from a line `---RALPH_STATUS---` to a line
// `---END_RALPH_STATUS---` (outside fences); the last complete block wins. Its keys are anchored at the
// start of a line (so `TESTS_STATUS:` is not `STATUS:`). `EXIT_SIGNAL: true` says done; `EXIT_SIGNAL:
// false` says not done and overrides everything else, `STATUS: COMPLETE` and the tag included; without
// EXIT_SIGNAL, `STATUS: COMPLETE` says done and any other STATUS says nothing.
const NEGATION = /\b(?:not|no|never|without|until|unless|cannot|nor|dont|wont|cant)\b|n['’]t\b/i;
const QUOTES_BEFORE = new Set(['"', "'", '“', '”', '‘', '’', '«', '»', '`']);
const ENDING = /^[\s.!]*$/;
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Splits a message into lines, marking those inside fenced code blocks (fence lines included). */
function linesOf(message) {
    const lines = [];
    let fence;
    for (const text of message.replace(/\r\n?/g, '\n').split('\n')) {
        const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text);
        if (fence) {
            if (marker &&
                marker[1][0] === fence.char &&
                marker[1].length >= fence.length &&
                /^\s*[`~]+\s*$/.test(text))
                fence = undefined;
            lines.push({ text, prose: false });
        }
        else if (marker) {
            fence = { char: marker[1][0], length: marker[1].length };
            lines.push({ text, prose: false });
        }
        else {
            lines.push({ text, prose: !/^\s*>/.test(text) });
        }
    }
    return lines;
}
/** The sentence the tag ends: the text after the last `.`, `!`, `?` or `;` that is followed by a space. */
function sentenceBefore(textBefore) {
    const parts = textBefore.split(/[.!?;]\s/);
    return parts[parts.length - 1];
}
/** True when `<promise>tag</promise>` is given in `message` under the tag rule above. */
function tagGiven(message, tag) {
    if (!tag)
        return false;
    const pattern = new RegExp(`<promise>\\s*${escapeRegExp(tag)}\\s*</promise>`, 'g');
    const lines = linesOf(message);
    let last = lines.length - 1;
    while (last >= 0 && lines[last].text.trim() === '')
        last--;
    for (let i = 0; i <= last; i++) {
        const { text, prose } = lines[i];
        if (!prose)
            continue;
        for (const match of text.matchAll(pattern)) {
            const before = text.slice(0, match.index);
            const after = text.slice(match.index + match[0].length);
            if ((before.match(/`/g) ?? []).length % 2 === 1)
                continue;
            if (QUOTES_BEFORE.has(before.at(-1) ?? '') || QUOTES_BEFORE.has(after[0] ?? ''))
                continue;
            if (!ENDING.test(after))
                continue;
            if (before.trim() === '')
                return true;
            if (i === last && !NEGATION.test(sentenceBefore(before)))
                return true;
        }
    }
    return false;
}
/** The verdict of the last complete `---RALPH_STATUS---` block, or undefined when there is none. */
function statusBlockExit(message) {
    const lines = linesOf(message);
    let block;
    let lastBlock;
    for (const { text, prose } of lines) {
        if (!prose)
            continue;
        const trimmed = text.trim();
        if (trimmed === '---RALPH_STATUS---')
            block = [];
        else if (trimmed === '---END_RALPH_STATUS---') {
            if (block)
                lastBlock = block;
            block = undefined;
        }
        else
            block?.push(text);
    }
    if (!lastBlock)
        return undefined;
    let exitSignal;
    let status;
    for (const line of lastBlock) {
        const exit = /^\s*EXIT_SIGNAL\s*:\s*["']?(\w+)["']?\s*$/i.exec(line);
        if (exit)
            exitSignal = exit[1].toLowerCase() === 'true';
        const state = /^\s*STATUS\s*:\s*["']?(\w+)["']?\s*$/i.exec(line);
        if (state)
            status = state[1].toUpperCase();
    }
    if (exitSignal !== undefined)
        return exitSignal;
    return status === 'COMPLETE' ? true : undefined;
}
/** Reads the completion signal from the agent's final message; an empty `tag` turns both signals off. */
function detectCompletion(finalMessage, tag) {
    if (!tag || finalMessage === undefined)
        return { tag: false, given: false };
    const tagSaid = tagGiven(finalMessage, tag);
    const statusExit = statusBlockExit(finalMessage);
    const given = statusExit === false ? false : tagSaid || statusExit === true;
    return statusExit === undefined ? { tag: tagSaid, given } : { tag: tagSaid, statusExit, given };
}

;// CONCATENATED MODULE: ./src/loop/fingerprint.ts
// Failure fingerprints: two runs of a failing check that fail the same way must look the same, even when
// timestamps, durations, addresses, temp paths or line numbers in stack frames differ.


/** Lines of each failing check's normalised output (from its end) that make up the fingerprint. */
const FINGERPRINT_LINES = 40;
const fingerprint_escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Order matters: whole timestamps before bare times, UUIDs before long hex runs, temp paths before numbers.
const RULES = [
    // eslint-disable-next-line no-control-regex -- ANSI escapes are what this rule removes
    [/\x1b\[[0-9;?]*[ -/]*[@-~]/g, ''],
    [/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<TIME>'],
    [/\b\d{4}[-/]\d{2}[-/]\d{2}\b/g, '<DATE>'],
    [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<TIME>'],
    [
        new RegExp(`(?:${fingerprint_escapeRegExp((0,external_node_os_namespaceObject.tmpdir)())}|/tmp|/var/tmp|/private/var/folders|/var/folders)/[^\\s'"\`:)\\]]+`, 'g'),
        '<TMP>'
    ],
    [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<UUID>'],
    [/\b0x[0-9a-f]+\b/gi, '<HEX>'],
    [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, '<HEX>'],
    // Stack frames: file:line:column (node, most compilers) and Python's `File "x", line N`.
    [/(\.[A-Za-z0-9]+):\d+(?::\d+)?/g, '$1:<N>'],
    [/\bline \d+/g, 'line <N>'],
    [/\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?)\b/g, '<DUR>'],
    [/\bpid[ :=]?\d+/gi, 'pid <N>'],
    [/[ \t]+/g, ' ']
];
/** Output with the parts that change from run to run (but not the failure) replaced by placeholders. */
function normaliseFailureOutput(text) {
    let out = text;
    for (const [pattern, replacement] of RULES)
        out = out.replace(pattern, replacement);
    return out
        .split('\n')
        .map(line => line.trim())
        .filter(line => line !== '')
        .join('\n');
}
/** The last lines (counted after normalising, so shorter or longer durations shift nothing). */
function stableTail(output) {
    return normaliseFailureOutput(output).split('\n').slice(-FINGERPRINT_LINES).join('\n');
}
/**
 * One hash for an iteration's failing checks (names and the last lines of their normalised output);
 * '' when none failed. Callers pass a bounded tail of each output (a few KiB), not the whole of it.
 */
function failureFingerprint(failures) {
    if (failures.length === 0)
        return '';
    const hash = (0,external_node_crypto_namespaceObject.createHash)('sha256');
    for (const failure of [...failures].sort((a, b) => a.name.localeCompare(b.name))) {
        hash.update(`${failure.name}\0${stableTail(failure.output)}\0`);
    }
    return hash.digest('hex').slice(0, 16);
}

;// CONCATENATED MODULE: ./src/git/git.ts
// Runs the git CLI without a shell. Every call answers {exitCode, stdout, stderr}; callers decide what a
// non-zero exit means (probes such as `rev-parse --verify HEAD` expect failures).


const DEFAULT_MAX_STDOUT = 8 * 1024 * 1024;
const MAX_STDERR = 64 * 1024;
function git_runGit(args, options) {
    const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
    return new Promise(resolve => {
        const child = (0,external_node_child_process_namespaceObject.spawn)(trustedProgram('git'), args, {
            cwd: options.cwd,
            env: { ...process.env, ...options.env },
            stdio: ['ignore', 'pipe', 'pipe']
        });
        const out = [];
        const err = [];
        let outBytes = 0;
        let errBytes = 0;
        let truncated = false;
        let settled = false;
        const finish = (result) => {
            if (settled)
                return;
            settled = true;
            resolve(result);
        };
        child.stdout.on('data', (chunk) => {
            if (outBytes >= maxStdout) {
                truncated = true;
                return;
            }
            const room = maxStdout - outBytes;
            if (chunk.length > room)
                truncated = true;
            const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
            out.push(kept);
            outBytes += kept.length;
        });
        child.stderr.on('data', (chunk) => {
            if (errBytes >= MAX_STDERR)
                return;
            err.push(chunk);
            errBytes += chunk.length;
        });
        child.on('error', error => {
            finish({
                exitCode: 127,
                stdout: '',
                stderr: `git could not be started: ${error.message}`,
                stdoutTruncated: false
            });
        });
        child.on('close', code => {
            finish({
                exitCode: code ?? 128,
                stdout: Buffer.concat(out).toString('utf8'),
                stderr: Buffer.concat(err).toString('utf8'),
                stdoutTruncated: truncated
            });
        });
    });
}
/** Thrown when a git call that must succeed fails: names the command and git's own message. */
class git_GitError extends Error {
    args;
    result;
    constructor(args, result) {
        super(`git ${args.join(' ')} failed (exit ${result.exitCode}): ${result.stderr.trim() || result.stdout.trim()}`);
        this.args = args;
        this.result = result;
        this.name = 'GitError';
    }
}
/** Runs git and throws GitError unless it exits 0. */
async function gitOrThrow(args, options) {
    const result = await git_runGit(args, options);
    if (result.exitCode !== 0)
        throw new git_GitError(args, result);
    return result;
}
/**
 * git with `input` on stdin, answering its whole stdout as bytes (object contents, -z listings); a non-zero
 * exit rejects with stderr's first line. For commands whose output the caller needs whole and exact.
 */
function gitBytes(cwd, args, options = {}) {
    return new Promise((resolve, reject) => {
        const child = (0,external_node_child_process_namespaceObject.spawn)(trustedProgram('git'), args, { cwd, env: { ...process.env, ...options.env } });
        const out = [];
        const err = [];
        child.stdout.on('data', (chunk) => out.push(chunk));
        child.stderr.on('data', (chunk) => err.push(chunk));
        child.on('error', reject);
        child.on('close', code => code === 0
            ? resolve(Buffer.concat(out))
            : reject(new Error(`git ${args[0]} failed: ${Buffer.concat(err).toString('utf8').trim().split('\n')[0]}`)));
        child.stdin.on('error', () => undefined);
        child.stdin.end(options.input ?? '');
    });
}

;// CONCATENATED MODULE: ./src/git/workspace.ts
// The loop's work tree as git sees it: what it looks like now (a tree hash that includes uncommitted and
// untracked changes), what changed since the loop started, and a commit of what the agent left.





const DIFF_PATCH_CHARS = 5000;
/** Bytes read of a file at a commit (package.json's scripts). */
const FILE_AT_BYTES = 1024 * 1024;
/** Bytes kept of `git ls-files` (a line per untracked or modified file, a line per index entry). */
const LIST_BYTES = 64 * 1024 * 1024;
/** A gitlink's mode in the index: git enters such a folder (`git status` in it, with its own config). */
const GITLINK_MODE = '160000';
/** The largest file delivered by default: GitHub warns at 50 MiB and refuses a push with one over 100 MiB. */
const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024;
const SIZE_UNITS = {
    b: 1,
    kb: 1024,
    k: 1024,
    mb: 1024 ** 2,
    m: 1024 ** 2,
    gb: 1024 ** 3,
    g: 1024 ** 3
};
/** `50 MB`, `500KB`, `1g`, or a bare number of megabytes, in bytes (binary units); undefined when unreadable. */
function parseFileSize(text) {
    const m = /^(\d+(?:\.\d+)?)\s*([kmg]?b?)$/i.exec(text.trim());
    if (!m)
        return undefined;
    const bytes = Math.floor(Number(m[1]) * (SIZE_UNITS[m[2].toLowerCase() || 'mb'] ?? 0));
    return bytes >= 1 ? bytes : undefined;
}
/** Bytes kept for `git diff --stat` (a line per file). */
const STAT_BYTES = 256 * 1024;
// Used when git has no identity configured (fresh CI runners): the commit must not fail for that.
const FALLBACK_IDENTITY = { name: 'ralph-action', email: 'ralph-action@users.noreply.github.com' };
/** Hooks `git commit --no-verify` still runs: with one of them, commits take git's own path. */
const COMMIT_HOOKS = ['prepare-commit-msg', 'post-commit'];
/** A merge, cherry-pick or revert in progress: `git commit` would finish it, so it gets to. */
const SEQUENCER_STATES = ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD'];
/** A size for people: `60.0 MB` (binary megabytes, as GitHub's limits are). */
function megabytes(bytes) {
    const mb = bytes / (1024 * 1024);
    return mb >= 1 ? `${mb.toFixed(mb >= 10 ? 0 : 1)} MB` : `${bytes} bytes`;
}
/** git's boolean config values (git_parse_maybe_bool); a key given without `=` is true. */
function gitBool(value) {
    if (value === undefined)
        return true;
    const v = value.trim().toLowerCase();
    if (['true', 'yes', 'on'].includes(v))
        return true;
    if (['false', 'no', 'off', ''].includes(v))
        return false;
    return Number.parseInt(v, 10) !== 0;
}
class GitWorkspace {
    root;
    env;
    maxFileBytes;
    scratch;
    /** The tree the scratch index held at its last write-tree. */
    scratchTree;
    paths;
    settings;
    head;
    /** The scratch index's gitlinks (those of the start: no new one ever enters it). */
    scratchGitlinks;
    refusals = new Set();
    /** Files refused for their size (each named once, whatever size it grows to). */
    oversized = new Set();
    constructor(root, 
    /** Variables every git command of this workspace gets (the action's hermetic git environment). */
    env = {}, 
    /** A file larger than this is left out of every tree and commit; undefined: no limit. */
    maxFileBytes) {
        this.root = root;
        this.env = env;
        this.maxFileBytes = maxFileBytes;
    }
    /** Opens the work tree that contains `dir` (or `dir` itself when it is not inside a repository). */
    static async open(dir, options = {}) {
        const top = await git_runGit(['rev-parse', '--show-toplevel'], { cwd: dir, env: options.env });
        return new GitWorkspace(top.exitCode === 0 ? top.stdout.trim() : dir, options.env, options.maxFileBytes);
    }
    git(args, env, maxStdoutBytes) {
        return git_runGit(args, { cwd: this.root, env: { ...this.env, ...env }, maxStdoutBytes });
    }
    /** git that must succeed (throws GitError). */
    gitOrThrow(args, env, maxStdoutBytes) {
        return gitOrThrow(args, { cwd: this.root, env: { ...this.env, ...env }, maxStdoutBytes });
    }
    async fileAt(commit, file) {
        const result = await this.git(['cat-file', 'blob', `${commit}:${file}`], undefined, FILE_AT_BYTES);
        return result.exitCode === 0 && !result.stdoutTruncated ? result.stdout : undefined;
    }
    async isRepo() {
        const result = await this.git(['rev-parse', '--is-inside-work-tree']);
        return result.exitCode === 0 && result.stdout.trim() === 'true';
    }
    async headSha() {
        const result = await this.git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
        return result.exitCode === 0 ? result.stdout.trim() : undefined;
    }
    // A scratch index outside the work tree, seeded from the real one so `add -A` only rehashes changed
    // files; the user's staging area is never touched.
    async treeHash() {
        const env = { GIT_INDEX_FILE: await this.scratchIndex() };
        this.scratchTree = undefined;
        this.scratchGitlinks ??= await this.gitlinks(env);
        await this.gitOrThrow(['add', '-A', ...(await this.deliverable(env, this.scratchGitlinks))], env);
        const tree = (await this.gitOrThrow(['write-tree'], env)).stdout.trim();
        this.scratchTree = tree;
        return tree;
    }
    refused() {
        return [...this.refusals];
    }
    /** The index's gitlinks (the folders git would enter to ask their status). */
    async gitlinks(env) {
        const out = await this.gitOrThrow(['ls-files', '-z', '--stage'], env, LIST_BYTES);
        return out.stdout
            .split('\0')
            .filter(line => line.startsWith(`${GITLINK_MODE} `))
            .map(line => line.slice(line.indexOf('\t') + 1));
    }
    /**
     * The pathspec for `git add -A`: the whole tree but what git would enter or what would wire a submodule.
     * A nested repository becomes a gitlink, and git then runs `git status` inside it, as the action, with
     * that repository's own config: its filters, fsmonitor and hooks, the agent's. So nested repositories
     * and the index's gitlinks are never looked into, and `.gitmodules` keeps the start's content. A new or
     * changed file over the size limit keeps what the index holds (nothing, or the start's). Each refusal is
     * noted once.
     */
    async deliverable(env, gitlinks) {
        // Untracked (`?`, a nested repository ends with '/') and changed (`C`) paths; git lists a nested
        // repository as one entry and never descends into it, nor into a gitlink.
        const out = await this.gitOrThrow(['ls-files', '-z', '-t', '--others', '--modified', '--exclude-standard'], env, LIST_BYTES);
        if (out.stdoutTruncated)
            throw new Error('the work tree lists more files than the action reads (64 MB of names)');
        const links = new Set(gitlinks);
        const nested = [];
        const large = [];
        for (const entry of out.stdout.split('\0')) {
            const tag = entry.slice(0, 1);
            const name = entry.slice(2);
            if (tag === '?' && name.endsWith('/')) {
                nested.push(name.slice(0, -1));
                this.refusals.add(`${name}.git: a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without ${name}`);
            }
            else if (name === '.gitmodules')
                this.refusals.add('.gitmodules: a change to it is not delivered (submodules are never entered); the run goes on with the one it started with');
            else if (tag === 'C' && links.has(name))
                this.refusals.add(`${name}: a change to a submodule (a gitlink) is not delivered; the run goes on with the commit it started with`);
            else if (name && this.maxFileBytes !== undefined) {
                // lstat: a link is its own few bytes, never what it points at.
                const size = (0,external_node_fs_namespaceObject.lstatSync)(external_node_path_default().join(this.root, name), { throwIfNoEntry: false })?.size ?? 0;
                if (size <= this.maxFileBytes)
                    continue;
                large.push(name);
                if (this.oversized.has(name))
                    continue;
                this.oversized.add(name);
                this.refusals.add(`${name}: ${megabytes(size)} is over max-file-size (${megabytes(this.maxFileBytes)}): it is not delivered; the run goes on without ${tag === 'C' ? 'this change to it' : 'it'}`);
            }
        }
        return [
            '--',
            '.',
            ...[...nested, ...gitlinks, '.gitmodules', ...large].map(name => `:(exclude,literal,top)${name}`)
        ];
    }
    async diffSinceStart(start, current, maxPatchChars = DIFF_PATCH_CHARS) {
        const to = current ?? (await this.treeHash());
        // One call: the stat, a blank line, then the patch. Enough bytes for a long stat and maxPatchChars of
        // patch (four bytes a character at most); the rest of git's output is read and dropped.
        const out = await this.gitOrThrow(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--patch-with-stat', start, to], undefined, STAT_BYTES + maxPatchChars * 4 + 4);
        const text = out.stdout;
        const split = text.indexOf('\n\ndiff --git ');
        const stat = split === -1 ? text : text.slice(0, split + 1);
        const patch = split === -1 ? '' : text.slice(split + 2);
        const truncated = (out.stdoutTruncated && split !== -1) || patch.length > maxPatchChars;
        return { stat, patch: patch.slice(0, maxPatchChars), patchTruncated: truncated };
    }
    async commitAll(message, tree) {
        const head = await this.knownHead();
        if (tree !== undefined && tree === head.tree)
            return undefined;
        tree ??= await this.treeHash();
        if (tree === head.tree)
            return undefined;
        const fast = await this.commitTree(message, tree, head);
        if (fast !== undefined)
            return fast;
        // git's own path: stage everything in the real index, commit what differs from HEAD.
        this.head = undefined;
        await this.gitOrThrow(['add', '-A', ...(await this.deliverable(undefined, await this.gitlinks()))]);
        const staged = await this.git(['diff', '--cached', '--quiet', '--no-ext-diff', '--no-textconv']);
        if (staged.exitCode === 0)
            return undefined;
        // --no-verify: the gates are the loop's verification; a hook must not stall the loop.
        await this.gitOrThrow(['commit', '--quiet', '--no-verify', '-m', message], (await this.commitSettings()).env);
        return this.headSha();
    }
    /**
     * The commit `git commit --no-verify` would make, in two processes instead of five: the scratch index
     * already holds `tree`, so it is written as a commit on HEAD, HEAD is moved only if it is still where we
     * saw it, and the scratch index becomes the real one under git's index.lock (as `git commit` leaves it:
     * everything staged). Answers undefined, having changed nothing, whenever git's own path must decide:
     * a hook that would run, signing, a merge in progress, a multi-line message, HEAD moved, a busy index.
     */
    async commitTree(message, tree, head) {
        const paths = await this.gitPaths();
        const settings = await this.commitSettings();
        if (settings.sign || !this.scratch || this.scratchTree !== tree || !/^[^\s#](.*\S)?$/.test(message))
            return undefined;
        // Metadata calls, synchronous: a few microseconds each, where a promise round trip costs more.
        const present = (file, mode) => {
            try {
                (0,external_node_fs_namespaceObject.accessSync)(file, mode);
                return true;
            }
            catch {
                return false;
            }
        };
        if (COMMIT_HOOKS.some(hook => present(external_node_path_default().join(paths.hooks, hook), external_node_fs_namespaceObject.constants.X_OK)))
            return undefined;
        if (paths.states.some(state => present(state, external_node_fs_namespaceObject.constants.F_OK)))
            return undefined;
        const lock = `${paths.index}.lock`;
        try {
            (0,external_node_fs_namespaceObject.copyFileSync)(this.scratch.index, lock, external_node_fs_namespaceObject.constants.COPYFILE_EXCL);
        }
        catch {
            return undefined;
        }
        let committed;
        try {
            const parent = head.commit ? ['-p', head.commit] : [];
            const made = await this.git(['commit-tree', tree, ...parent, '-m', message], settings.env);
            if (made.exitCode !== 0)
                return undefined;
            const sha = made.stdout.trim();
            const reflog = `commit${head.commit ? '' : ' (initial)'}: ${message}`;
            // The old value '' means "HEAD has no commit yet".
            const moved = await this.git(['update-ref', '-m', reflog, 'HEAD', sha, head.commit]);
            if (moved.exitCode !== 0)
                return undefined;
            committed = sha;
            this.head = { commit: sha, tree, log: this.headLogMark(paths) };
            await this.installIndex(paths.index, lock, this.scratch.index);
            return sha;
        }
        finally {
            if (committed === undefined)
                (0,external_node_fs_namespaceObject.rmSync)(lock, { force: true });
        }
    }
    /** Renames the locked copy of the scratch index over the real one, with the real one's mode. */
    async installIndex(index, lock, scratch) {
        try {
            const made = (0,external_node_fs_namespaceObject.statSync)(scratch);
            const real = (0,external_node_fs_namespaceObject.statSync)(index, { throwIfNoEntry: false });
            if (real)
                (0,external_node_fs_namespaceObject.chmodSync)(lock, real.mode & 0o7777);
            // A hair older than the scratch index: git's racy-entry check then re-reads, rather than trusts, a file
            // changed while the index was written (a plain copy would look newer than every entry in it).
            (0,external_node_fs_namespaceObject.utimesSync)(lock, made.atime, new Date(made.mtime.getTime() - 1));
            (0,external_node_fs_namespaceObject.renameSync)(lock, index);
        }
        catch {
            (0,external_node_fs_namespaceObject.rmSync)(lock, { force: true });
            // The commit is made: bring the index to it the slow way (or say why that failed too).
            await this.gitOrThrow(['reset', '--quiet']);
        }
    }
    /** HEAD and its tree, re-read only when HEAD's reflog shows that someone (an agent) moved it. */
    async knownHead() {
        const paths = await this.gitPaths();
        const log = this.headLogMark(paths);
        if (this.head && log !== undefined && this.head.log === log)
            return this.head;
        // Both in one call; it fails only when HEAD has no commit yet.
        const read = await this.git(['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}']);
        const [commit, tree] = read.exitCode === 0 ? read.stdout.trim().split('\n') : ['', ''];
        this.head = { commit, tree, log };
        return this.head;
    }
    /** Size and time of HEAD's reflog; undefined without one (then HEAD is re-read at every commit). */
    headLogMark(paths) {
        try {
            const log = (0,external_node_fs_namespaceObject.statSync)(paths.headLog);
            return `${log.size}:${log.mtimeMs}`;
        }
        catch {
            return undefined;
        }
    }
    async dispose() {
        if (this.scratch)
            await (0,external_node_fs_promises_namespaceObject.rm)(this.scratch.dir, { recursive: true, force: true });
        this.scratch = undefined;
        this.scratchGitlinks = undefined;
    }
    async scratchIndex() {
        if (this.scratch)
            return this.scratch.index;
        const dir = await (0,external_node_fs_promises_namespaceObject.mkdtemp)(external_node_path_default().join((0,external_node_os_namespaceObject.tmpdir)(), 'ralph-index-'));
        const index = external_node_path_default().join(dir, 'index');
        const real = await this.gitPaths().catch(() => undefined);
        if (real)
            await (0,external_node_fs_promises_namespaceObject.copyFile)(real.index, index).catch(() => undefined);
        this.scratch = { dir, index };
        return index;
    }
    /** Where git keeps the index, the hooks, HEAD's reflog and the merge/cherry-pick states (one call). */
    async gitPaths() {
        if (this.paths)
            return this.paths;
        const names = ['index', 'hooks', 'logs/HEAD', ...SEQUENCER_STATES];
        const out = await this.gitOrThrow(['rev-parse', ...names.flatMap(name => ['--git-path', name])]);
        const [index, hooks, headLog, ...states] = out.stdout
            .split('\n')
            .slice(0, names.length)
            .map(line => external_node_path_default().resolve(this.root, line));
        this.paths = { index, hooks, headLog, states };
        return this.paths;
    }
    /** The identity fallback and whether commits are signed, read from git's config once (one call). */
    async commitSettings() {
        if (this.settings)
            return this.settings;
        const out = await this.git(['config', '-z', '--get-regexp', '^(user\\.(name|email)|commit\\.gpgsign)$']);
        const values = new Map();
        for (const entry of out.stdout.split('\0')) {
            if (!entry)
                continue;
            const newline = entry.indexOf('\n');
            // The last one wins, as in git; a key without a value has none.
            if (newline === -1)
                values.set(entry.toLowerCase(), undefined);
            else
                values.set(entry.slice(0, newline).toLowerCase(), entry.slice(newline + 1));
        }
        const env = {};
        if (!values.get('user.name')?.trim()) {
            env.GIT_AUTHOR_NAME = process.env.GIT_AUTHOR_NAME ?? FALLBACK_IDENTITY.name;
            env.GIT_COMMITTER_NAME = process.env.GIT_COMMITTER_NAME ?? FALLBACK_IDENTITY.name;
        }
        if (!values.get('user.email')?.trim()) {
            env.GIT_AUTHOR_EMAIL = process.env.GIT_AUTHOR_EMAIL ?? FALLBACK_IDENTITY.email;
            env.GIT_COMMITTER_EMAIL = process.env.GIT_COMMITTER_EMAIL ?? FALLBACK_IDENTITY.email;
        }
        const sign = values.has('commit.gpgsign') && gitBool(values.get('commit.gpgsign'));
        this.settings = { env, sign };
        return this.settings;
    }
}
/**
 * Creates a git worktree of the repository containing `repoDir` on a new branch (from `base`, default HEAD).
 * `dir` defaults to a new folder under the system temp dir, outside the repository.
 */
async function createWorktree(repoDir, options) {
    const base = await gitOrThrow(['rev-parse', '--verify', `${options.base ?? 'HEAD'}^{commit}`], {
        cwd: repoDir
    }).catch(() => {
        throw new Error(`--worktree needs a commit to start from: '${options.base ?? 'HEAD'}' is not one in ${repoDir}`);
    });
    const dir = options.dir ?? external_node_path_default().join(await (0,external_node_fs_promises_namespaceObject.mkdtemp)(external_node_path_default().join((0,external_node_os_namespaceObject.tmpdir)(), 'ralph-worktree-')), 'work');
    await gitOrThrow(['worktree', 'add', '--quiet', '-b', options.branch, dir, base.stdout.trim()], {
        cwd: repoDir
    });
    return { dir, branch: options.branch, base: base.stdout.trim() };
}

;// CONCATENATED MODULE: ./src/git/repo.ts
// Intent-named git commands for delivery (branch, fetch, push), over runGit. Every call answers
// {exitCode, stdout, stderr}; `probe` calls allow any exit code, the rest throw GitError.




class repo_GitRepo {
    dir;
    constructor(dir) {
        this.dir = dir;
    }
    /** Hermetic (no system or global config, no hooks, no secret, no prompt): see hermeticGitEnvironment. */
    async exec(args, options = {}) {
        const env = { ...options.env, ...git_env_hermeticGitEnvironment(options.config) };
        const result = await git_runGit(args, { cwd: this.dir, env, maxStdoutBytes: options.maxStdoutBytes });
        if (!options.probe && result.exitCode !== 0)
            throw new git_GitError(args, result);
        return result;
    }
    /** Hermetic, like exec: stdout whole as bytes (blobs, -z listings), `input` on stdin; a failure rejects. */
    bytes(args, input) {
        return gitBytes(this.dir, args, {
            env: git_env_hermeticGitEnvironment(),
            ...(input !== undefined ? { input } : {})
        });
    }
    /** The branch HEAD is on, or undefined when HEAD is detached (actions/checkout of a SHA or a PR merge). */
    async currentBranch() {
        const result = await this.exec(['symbolic-ref', '--quiet', '--short', 'HEAD'], { probe: true });
        return result.exitCode === 0 ? result.stdout.trim() : undefined;
    }
    /** The commit a ref names, or undefined when it names none. */
    async commitOf(ref) {
        const result = await this.exec(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], {
            probe: true
        });
        return result.exitCode === 0 ? result.stdout.trim() : undefined;
    }
    async headSha() {
        const sha = await this.commitOf('HEAD');
        if (!sha)
            throw new Error(`${this.dir} has no commit checked out`);
        return sha;
    }
    async isShallow() {
        const result = await this.exec(['rev-parse', '--is-shallow-repository']);
        return result.stdout.trim() === 'true';
    }
    /** An absolute path inside the git directory (`config`, `objects`, `shallow`), worktrees included. */
    async gitPath(name) {
        const result = await this.exec(['rev-parse', '--git-path', name]);
        return external_node_path_default().resolve(this.dir, result.stdout.trim());
    }
    /** The git directory shared by all worktrees (where `config` and `modules/` live). */
    async commonDir() {
        const result = await this.exec(['rev-parse', '--git-common-dir']);
        return external_node_path_default().resolve(this.dir, result.stdout.trim());
    }
    async objectFormat() {
        const result = await this.exec(['rev-parse', '--show-object-format'], { probe: true });
        return result.exitCode === 0 && result.stdout.trim() ? result.stdout.trim() : 'sha1';
    }
    /** The branch's commit on the remote (asked over the network), or null when the remote has no such branch. */
    async remoteBranchSha(remote, branch, config) {
        const ref = `refs/heads/${branch}`;
        const result = await this.exec(['ls-remote', '--heads', '--end-of-options', remote, ref], { config });
        for (const line of result.stdout.split('\n')) {
            const [sha, name] = line.split('\t');
            if (name === ref)
                return sha;
        }
        return null;
    }
    /** The remote's default branch (its HEAD), or undefined when it cannot be learnt. */
    async remoteDefaultBranch(remote, config) {
        const result = await this.exec(['ls-remote', '--symref', '--end-of-options', remote, 'HEAD'], {
            probe: true,
            config
        });
        const m = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(result.stdout);
        if (m)
            return m[1];
        const local = await this.exec(['symbolic-ref', '--quiet', '--short', `refs/remotes/${remote}/HEAD`], {
            probe: true
        });
        return local.exitCode === 0 ? local.stdout.trim().replace(`${remote}/`, '') : undefined;
    }
    /**
     * Fetches branches into their remote-tracking refs (`+refs/heads/B:refs/remotes/<remote>/B`).
     * `depth`/`deepen`/`unshallow` only make sense in a shallow repository.
     */
    async fetchBranches(remote, branches, options = {}) {
        const args = ['fetch', '--no-tags', '--quiet', '--no-recurse-submodules'];
        if (options.depth !== undefined)
            args.push(`--depth=${options.depth}`);
        if (options.deepen !== undefined)
            args.push(`--deepen=${options.deepen}`);
        if (options.unshallow)
            args.push('--unshallow');
        args.push('--end-of-options', remote, ...branches.map(b => `+refs/heads/${b}:refs/remotes/${remote}/${b}`));
        return this.exec(args, { probe: true, config: options.config });
    }
    async mergeBase(a, b) {
        const result = await this.exec(['merge-base', '--end-of-options', a, b], { probe: true });
        return result.exitCode === 0 ? result.stdout.trim() : undefined;
    }
    /** Whether the trees of two commits differ (what a pull request would show). */
    async hasDiff(from, to) {
        const result = await this.exec(['diff', '--quiet', '--no-ext-diff', '--no-textconv', '--end-of-options', from, to], { probe: true });
        if (result.exitCode === 0)
            return false;
        if (result.exitCode === 1)
            return true;
        throw new git_GitError(['diff', '--quiet', from, to], result);
    }
    /** Commits reachable from `to` but not from `from`. */
    async countCommits(from, to) {
        const result = await this.exec(['rev-list', '--count', `${from}..${to}`, '--']);
        return Number(result.stdout.trim());
    }
    /** Paths that differ between two commits. */
    async changedPaths(from, to) {
        const result = await this.exec([
            'diff',
            '--name-only',
            '-z',
            '--no-ext-diff',
            '--no-renames',
            '--end-of-options',
            from,
            to
        ]);
        return result.stdout.split('\0').filter(Boolean);
    }
    /** One local config value, or undefined when unset. */
    async localConfig(key) {
        const result = await this.exec(['config', '--local', '--get', key], { probe: true });
        return result.exitCode === 0 ? result.stdout.replace(/\n$/, '') : undefined;
    }
}

;// CONCATENATED MODULE: ./src/git/branch.ts
// The loop's branch: created fresh from the latest base (or continued from the remote), the way
// actions/checkout leaves a repository: possibly shallow (fetch-depth 1), possibly on a detached HEAD (a
// SHA, a pull request's merge commit), possibly behind a base that moved on since the job started.



// Depths tried before --unshallow when a continued branch's fork point is not in a shallow clone.
const DEEPEN_STEPS = (/* unused pure expression or super */ null && ([50, 500]));
/** Creates (or continues) the loop's branch and checks it out. Throws an Error that says what to fix. */
async function prepareBranch(workTree, options) {
    const git = new GitRepo(workTree);
    const log = options.log ?? (() => undefined);
    const remote = options.remote ?? 'origin';
    const branch = await validBranchName(git, options.branch, 'branch');
    const config = options.auth ? authConfig(options.auth) : undefined;
    const previous = { branch: await git.currentBranch(), sha: await git.commitOf('HEAD') };
    const { base, source } = await resolveBase(git, remote, previous.branch, options, config);
    await validBranchName(git, base, 'base');
    log(`The base is '${base}' (${describeSource(source, previous)}).`);
    if (base === branch) {
        throw new Error(`The loop's branch and the base are both '${base}': the loop needs a branch of its own to push and open a pull request from. Give a different branch.`);
    }
    const hasRemote = await git.exec(['config', '--get', `remote.${remote}.url`], { probe: true });
    if (hasRemote.exitCode !== 0)
        return startLocally(git, branch, base, source, previous, remote, options);
    let shallow = await git.isShallow();
    // The latest base, whatever the checkout had: a base that moved on since the job started is caught up here.
    const baseFetch = await git.fetchBranches(remote, [base], { ...(shallow ? { depth: 1 } : {}), config });
    if (baseFetch.exitCode !== 0) {
        if (/couldn't find remote ref/i.test(baseFetch.stderr))
            throw new Error(`The base branch '${base}' does not exist on the remote '${remote}'.`);
        throw new Error(`Could not fetch the base branch '${base}' from '${remote}': ${baseFetch.stderr.trim()}`);
    }
    const baseRef = `refs/remotes/${remote}/${base}`;
    const baseTip = await git.commitOf(baseRef);
    if (!baseTip)
        throw new Error(`The base branch '${base}' was fetched but ${baseRef} names no commit.`);
    if (previous.sha && previous.sha !== baseTip && previous.branch === base)
        log(`'${base}' moved on since the checkout (${branch_short(previous.sha)} → ${branch_short(baseTip)}); starting from ${branch_short(baseTip)}.`);
    const remoteSha = await git.remoteBranchSha(remote, branch, config);
    if (options.continueExisting && remoteSha) {
        const branchRef = `refs/remotes/${remote}/${branch}`;
        const fetched = await git.fetchBranches(remote, [branch], {
            ...(shallow ? { depth: DEEPEN_STEPS[0] } : {}),
            config
        });
        if (fetched.exitCode !== 0)
            throw new Error(`Could not fetch the branch '${branch}' from '${remote}': ${fetched.stderr.trim()}`);
        await switchTo(git, branch, branchRef);
        const forkPoint = await findForkPoint(git, remote, base, branch, shallow, config, log);
        shallow = await git.isShallow();
        log(`Continuing '${branch}' from ${remote} at ${branch_short(remoteSha)} (forked from '${base}' at ${branch_short(forkPoint)}).`);
        return {
            branch,
            base,
            baseSource: source,
            baseSha: forkPoint,
            startSha: await git.headSha(),
            continued: true,
            remoteSha,
            shallow,
            previous
        };
    }
    if (options.continueExisting)
        log(`'${branch}' does not exist on ${remote} yet; starting it from '${base}'.`);
    else if (remoteSha)
        log(`'${branch}' exists on ${remote} (${branch_short(remoteSha)}); starting it afresh from '${base}' (it will be replaced on push).`);
    await switchTo(git, branch, baseRef);
    log(`Created '${branch}' from '${base}' at ${branch_short(baseTip)}.`);
    return {
        branch,
        base,
        baseSource: source,
        baseSha: baseTip,
        startSha: baseTip,
        continued: false,
        remoteSha,
        shallow,
        previous
    };
}
async function resolveBase(git, remote, checkedOut, options, config) {
    const env = options.env ?? process.env;
    const given = options.base?.trim();
    if (given)
        return { base: given.replace(/^refs\/heads\//, ''), source: 'input' };
    if (checkedOut)
        return { base: checkedOut, source: 'checkout' };
    // Detached HEAD: a pull request's merge commit (its base is GITHUB_BASE_REF), or a SHA checked out.
    if (env.GITHUB_BASE_REF)
        return { base: env.GITHUB_BASE_REF, source: 'pull-request' };
    if (env.GITHUB_REF?.startsWith('refs/heads/'))
        return { base: env.GITHUB_REF.slice('refs/heads/'.length), source: 'github-ref' };
    const fallback = await git.remoteDefaultBranch(remote, config);
    if (fallback)
        return { base: fallback, source: 'remote-default' };
    throw new Error(`HEAD is detached and the base branch cannot be worked out (no GITHUB_BASE_REF, GITHUB_REF is '${env.GITHUB_REF ?? ''}', and ${remote} did not say its default branch): give the base branch.`);
}
function describeSource(source, previous) {
    switch (source) {
        case 'input':
            return 'given';
        case 'checkout':
            return 'the branch checked out';
        case 'pull-request':
            return `HEAD is detached at ${branch_short(previous.sha)}; the pull request's base, GITHUB_BASE_REF`;
        case 'github-ref':
            return `HEAD is detached at ${branch_short(previous.sha)}; from GITHUB_REF`;
        case 'remote-default':
            return `HEAD is detached at ${branch_short(previous.sha)}; the remote's default branch`;
    }
}
async function validBranchName(git, name, what) {
    const trimmed = name.trim();
    // Names reach git as arguments: refuse what could read as an option or hide in a log.
    const check = await git.exec(['check-ref-format', '--branch', trimmed], { probe: true });
    if (!trimmed ||
        trimmed.startsWith('-') ||
        [...trimmed].some(c => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) ||
        check.exitCode !== 0)
        throw new Error(`'${name}' is not a valid ${what} name.`);
    return trimmed;
}
/** A repository without the remote: a local trial starts from the local base; anything else is told how. */
async function startLocally(git, branch, base, source, previous, remote, options) {
    if (!options.localOnly)
        throw new Error(`This repository has no remote '${remote}' to push '${branch}' to: add one, or for a local trial set open-pr: false (and on-failure: none), which starts the branch from the local '${base}'.`);
    const baseTip = await git.commitOf(`refs/heads/${base}`);
    if (!baseTip)
        throw new Error(`There is no remote '${remote}' and no local branch '${base}' to start from: commit on '${base}' first, or give the base.`);
    await switchTo(git, branch, `refs/heads/${base}`);
    options.log?.(`There is no remote '${remote}': a local trial, so nothing will be pushed. Created '${branch}' from the local '${base}' at ${branch_short(baseTip)}.`);
    return {
        branch,
        base,
        baseSource: source,
        baseSha: baseTip,
        startSha: baseTip,
        continued: false,
        remoteSha: null,
        shallow: await git.isShallow(),
        previous
    };
}
async function switchTo(git, branch, start) {
    const result = await git.exec(['checkout', '--quiet', '--no-track', '-B', branch, start, '--'], {
        probe: true
    });
    if (result.exitCode === 0)
        return;
    if (/would be overwritten/.test(result.stderr)) {
        throw new Error(`Cannot switch to '${branch}' (${start}): local changes in the work tree would be overwritten. The loop must start from a clean checkout.\n${result.stderr.trim()}`);
    }
    throw new GitError(['checkout', '-B', branch, start], result);
}
/**
 * The commit where a continued branch left the base. In a shallow clone the histories are deepened step by
 * step until it is found, and unshallowed only when that was not enough.
 */
async function findForkPoint(git, remote, base, branch, shallow, config, log) {
    const baseRef = `refs/remotes/${remote}/${base}`;
    const branchRef = `refs/remotes/${remote}/${branch}`;
    let found = await git.mergeBase(baseRef, branchRef);
    if (found || !shallow) {
        if (found)
            return found;
        throw new Error(`'${branch}' shares no history with '${base}': it cannot be continued as a pull request to it.`);
    }
    const attempts = [
        ...DEEPEN_STEPS.map(depth => ({ depth })),
        { unshallow: true }
    ];
    for (const attempt of attempts) {
        if (attempt.unshallow && !(await git.isShallow()))
            break;
        log(attempt.unshallow
            ? `The fork point of '${branch}' and '${base}' is not in this shallow clone; fetching their whole history.`
            : `Fetching '${base}' and '${branch}' to depth ${attempt.depth} to find where they forked.`);
        const result = await git.fetchBranches(remote, [base, branch], { ...attempt, config });
        if (result.exitCode !== 0)
            throw new Error(`Could not deepen the shallow clone: ${result.stderr.trim()}`);
        found = await git.mergeBase(baseRef, branchRef);
        if (found)
            return found;
    }
    throw new Error(`'${branch}' shares no history with '${base}': it cannot be continued as a pull request to it.`);
}
function branch_short(sha) {
    return sha ? sha.slice(0, 7) : '(none)';
}
/** The identity the loop's commits are made with unless told otherwise. */
const GITHUB_ACTIONS_IDENTITY = {
    name: 'github-actions[bot]',
    email: '41898282+github-actions[bot]@users.noreply.github.com'
};
/** Sets the commit identity in the repository's local config, restorably. */
async function configureIdentity(workTree, identity = {}) {
    const git = new GitRepo(workTree);
    const name = identity.name?.trim() || GITHUB_ACTIONS_IDENTITY.name;
    const email = identity.email?.trim() || GITHUB_ACTIONS_IDENTITY.email;
    const before = { name: await git.localConfig('user.name'), email: await git.localConfig('user.email') };
    await git.exec(['config', '--local', '--replace-all', 'user.name', name]);
    await git.exec(['config', '--local', '--replace-all', 'user.email', email]);
    let restored = false;
    return {
        name,
        email,
        async restore() {
            if (restored)
                return;
            restored = true;
            for (const [key, value] of [
                ['user.name', before.name],
                ['user.email', before.email]
            ]) {
                if (value === undefined)
                    await git.exec(['config', '--local', '--unset-all', key], { probe: true });
                else
                    await git.exec(['config', '--local', '--replace-all', key, value]);
            }
        }
    };
}
// --- what the branch holds ---
/** Whether HEAD (or `head`) differs from `baseSha`: false means no diff, so no pull request. */
function hasDiff(workTree, baseSha, head = 'HEAD') {
    return new GitRepo(workTree).hasDiff(baseSha, head);
}
/** How many commits `head` has that `sinceSha` has not (0: this run committed nothing to push). */
function commitsSince(workTree, sinceSha, head = 'HEAD') {
    return new GitRepo(workTree).countCommits(sinceSha, head);
}
/** The paths that differ between `baseSha` and `head`. */
function changedFiles(workTree, baseSha, head = 'HEAD') {
    return new GitRepo(workTree).changedPaths(baseSha, head);
}
/** Changed paths under .github/workflows/: a push of them needs a token with the `workflows` permission. */
async function changedWorkflowFiles(workTree, baseSha, head = 'HEAD') {
    return (await changedFiles(workTree, baseSha, head)).filter(p => p.startsWith('.github/workflows/'));
}
const MAX_PATCH_BYTES = (/* unused pure expression or super */ null && (64 * 1024 * 1024));
/**
 * The commits from `baseSha` to `head` as an mbox patch (`git format-patch --stdout --binary`), for when the
 * push is refused: `git am < patch` on `baseSha` re-creates them. Pass `prepared.baseSha` for the whole
 * branch, or `prepared.remoteSha ?? prepared.baseSha` for exactly what the remote lacks.
 */
async function formatPatch(workTree, baseSha, head = 'HEAD') {
    const result = await new GitRepo(workTree).exec(['format-patch', '--stdout', '--binary', '--no-color', '--find-renames', `${baseSha}..${head}`, '--'], { maxStdoutBytes: MAX_PATCH_BYTES });
    if (result.stdoutTruncated)
        throw new Error(`The patch from ${branch_short(baseSha)} to ${head} is larger than ${MAX_PATCH_BYTES} bytes.`);
    return result.stdout;
}

;// CONCATENATED MODULE: ./src/git/credentials.ts
// actions/checkout leaves its token where any process in the job can read it: v4/v5 as
// `http.<server>/.extraheader = AUTHORIZATION: basic …` in .git/config, v6+ in $RUNNER_TEMP/git-credentials-<uuid>.config
// pulled in by `includeIf.gitdir:<repo>/.git.path` (and `…/.git/worktrees/*`, and `/github/…` paths for
// containers). For the agent's run both are taken away, and put back byte for byte afterwards.





/** The credentials file actions/checkout v6+ writes (its own pattern, from git-auth-helper.ts). */
const CHECKOUT_CREDENTIALS_FILE = /git-credentials-[0-9a-f-]+\.config$/i;
const EXTRA_HEADER_KEY = /^http\.(.*\.)?extraheader$/;
const INCLUDE_KEY = /^include(if\..*)?\.path$/;
const AUTH_VALUE = /^\s*authorization\s*:/i;
// A value pattern for `git config --unset-all` that matches the header without the token in argv.
const AUTH_VALUE_PATTERN = '^ *[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn] *:';
/** Removes the persisted credentials now; `restore()` puts them back. Prefer withoutPersistedCredentials. */
async function hidePersistedCredentials(workTree, options = {}) {
    const git = new GitRepo(workTree);
    const changes = [];
    const hiddenFiles = [];
    const removed = [];
    let restored;
    const restore = async () => {
        if (restored)
            return restored;
        const report = { changedConfigFiles: [], problems: [] };
        for (const hidden of hiddenFiles) {
            try {
                await mkdir(path.dirname(hidden.file), { recursive: true });
                await writeFile(hidden.file, hidden.content, { mode: hidden.mode });
                await chmod(hidden.file, hidden.mode);
            }
            catch (error) {
                report.problems.push(`could not put back ${hidden.file}: ${error.message}`);
            }
        }
        for (const change of [...changes].reverse()) {
            try {
                await restoreConfigFile(git, change, options.onConfigChange ?? 'discard', report);
            }
            catch (error) {
                report.problems.push(`could not restore ${change.file}: ${error.message}`);
            }
        }
        restored = report;
        return report;
    };
    try {
        const seen = new Set();
        for (const file of await credentials_configFiles(git)) {
            const entries = await listConfig(git, file);
            const found = [];
            for (const entry of entries) {
                if (EXTRA_HEADER_KEY.test(entry.key) && AUTH_VALUE.test(entry.value)) {
                    found.push(entry);
                }
                else if (INCLUDE_KEY.test(entry.key)) {
                    const target = resolveInclude(file, entry.value);
                    const isCheckoutFile = CHECKOUT_CREDENTIALS_FILE.test(entry.value);
                    if (!isCheckoutFile && !(await holdsAuthHeader(git, target)))
                        continue;
                    found.push(entry);
                    if (seen.has(target))
                        continue;
                    seen.add(target);
                    const content = await readFile(target).catch(() => undefined);
                    // Only checkout's own files are moved away; someone else's file stays, unreferenced, where it is.
                    if (content && isCheckoutFile) {
                        hiddenFiles.push({ file: target, content, mode: (await stat(target)).mode & 0o7777 });
                        await unlink(target);
                        removed.push(`credentials file ${target}`);
                    }
                }
            }
            if (found.length === 0)
                continue;
            const original = await readFile(file);
            const mode = (await stat(file)).mode & 0o7777;
            const change = { file, original, mode, redacted: original, entries: found };
            changes.push(change);
            for (const entry of dedupeKeys(found)) {
                if (EXTRA_HEADER_KEY.test(entry.key)) {
                    await git.exec(['config', '--file', file, '--unset-all', entry.key, AUTH_VALUE_PATTERN]);
                }
                else {
                    await git.exec(['config', '--file', file, '--fixed-value', '--unset-all', entry.key, entry.value]);
                }
                removed.push(`${entry.key} in ${file}`);
            }
            change.redacted = await readFile(file);
        }
    }
    catch (error) {
        await restore();
        throw error;
    }
    if (removed.length > 0)
        options.log?.(`Removed the persisted credentials for the agent's run: ${removed.join('; ')}.`);
    return { removed, restore };
}
/**
 * Runs `fn` (the agent's run) with the checkout's persisted credentials removed, and restores them in
 * `finally`, also when `fn` throws. A restore problem fails the call only when `fn` itself succeeded.
 */
async function withoutPersistedCredentials(workTree, fn, options = {}) {
    const hidden = await hidePersistedCredentials(workTree, options);
    let result;
    try {
        result = await fn();
    }
    catch (error) {
        await restoreAndReport(hidden, options, true);
        throw error;
    }
    await restoreAndReport(hidden, options, false);
    return result;
}
async function restoreAndReport(hidden, options, runFailed) {
    const report = await hidden.restore();
    if (report.changedConfigFiles.length > 0) {
        options.log?.(`The git config changed during the run (${report.changedConfigFiles.join(', ')}): ${(options.onConfigChange ?? 'discard') === 'discard'
            ? 'put back as it was before the run'
            : 'kept, with the credentials added back'}.`);
    }
    if (report.problems.length === 0)
        return;
    const message = `The persisted git credentials were not fully restored: ${report.problems.join('; ')}`;
    if (runFailed)
        options.log?.(message);
    else
        throw new Error(message);
}
async function restoreConfigFile(git, change, onChange, report) {
    const now = await readFile(change.file).catch(() => undefined);
    const untouched = now !== undefined && now.equals(change.redacted);
    if (!untouched)
        report.changedConfigFiles.push(change.file);
    if (untouched || now === undefined || onChange === 'discard') {
        await writeAtomically(change.file, change.original, change.mode);
        return;
    }
    for (const entry of change.entries) {
        if (!EXTRA_HEADER_KEY.test(entry.key)) {
            await git.exec(['config', '--file', change.file, '--add', entry.key, entry.value]);
            continue;
        }
        // Like actions/checkout: a placeholder through argv, the secret written straight into the file.
        const placeholder = `ralph-placeholder-${randomUUID()}`;
        await git.exec(['config', '--file', change.file, '--add', entry.key, placeholder]);
        const text = await readFile(change.file, 'utf8');
        if (text.indexOf(placeholder) < 0 || text.indexOf(placeholder) !== text.lastIndexOf(placeholder))
            throw new Error(`the placeholder for ${entry.key} was not found once in ${change.file}`);
        await writeAtomically(change.file, Buffer.from(text.replace(placeholder, quoteConfigValue(entry.value))), change.mode);
    }
}
/** The local config, the worktree's config, and every submodule's config under modules/. */
async function credentials_configFiles(git) {
    const common = await git.commonDir();
    const files = [path.join(common, 'config'), await git.gitPath('config.worktree')];
    const walk = async (dir) => {
        const names = await readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const entry of names) {
            if (!entry.isDirectory())
                continue;
            const sub = path.join(dir, entry.name);
            files.push(path.join(sub, 'config'));
            await walk(path.join(sub, 'modules'));
        }
    };
    await walk(path.join(common, 'modules'));
    const existing = [];
    for (const file of new Set(files)) {
        if (await stat(file).then(s => s.isFile(), () => false))
            existing.push(file);
    }
    return existing;
}
async function listConfig(git, file) {
    const result = await git.exec(['config', '--file', file, '--null', '--list']);
    return result.stdout
        .split('\0')
        .filter(Boolean)
        .map(record => {
        const newline = record.indexOf('\n');
        return newline < 0
            ? { key: record, value: '' }
            : { key: record.slice(0, newline), value: record.slice(newline + 1) };
    });
}
async function holdsAuthHeader(git, file) {
    if (!(await stat(file).then(s => s.isFile(), () => false)))
        return false;
    const entries = await listConfig(git, file).catch(() => []);
    return entries.some(e => EXTRA_HEADER_KEY.test(e.key) && AUTH_VALUE.test(e.value));
}
function resolveInclude(configFile, value) {
    if (value.startsWith('~/'))
        return path.join(os.homedir(), value.slice(2));
    return path.resolve(path.dirname(configFile), value);
}
function dedupeKeys(entries) {
    const seen = new Set();
    return entries.filter(e => {
        const id = EXTRA_HEADER_KEY.test(e.key) ? e.key : `${e.key}\0${e.value}`;
        if (seen.has(id))
            return false;
        seen.add(id);
        return true;
    });
}
/** A value as git writes it into a config file. */
function quoteConfigValue(value) {
    if (!/^\s|\s$|[#;"\\\n]/.test(value))
        return value;
    return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}
async function writeAtomically(file, content, mode) {
    const temp = `${file}.ralph-${randomUUID()}`;
    try {
        await writeFile(temp, content, { mode });
        await chmod(temp, mode);
        await rename(temp, file);
    }
    catch (error) {
        await rm(temp, { force: true });
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/git/snapshot.ts
// What of .git can make the action's own git (or a later step's) run code or go elsewhere: the config files
// (core.fsmonitor, core.hooksPath, filter.*.smudge, url.*.insteadOf, remote.origin.url, http.proxy), info/
// (attributes that wire a filter, excludes, grafts) and hooks/. Snapshotted before the loop and put back,
// byte for byte and mode for mode, after it: whatever the agent (or a check) wrote there does not outlive
// the loop. Kept in a file too, so the post step can put it back when main was killed.




async function kind(file) {
    try {
        const s = await lstat(file);
        return s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
    }
    catch {
        return undefined;
    }
}
async function walk(dir, found) {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory())
            await walk(full, found);
        else
            found.push(full);
    }
}
async function save(file) {
    const s = await lstat(file).catch(() => undefined);
    if (!s?.isFile())
        return undefined;
    return { path: file, mode: s.mode & 0o7777, content: (await readFile(file)).toString('base64') };
}
/** The config files, info/ and hooks/ of the work tree's repository, as they are now. */
async function snapshotGitDir(workTree) {
    const git = new GitRepo(workTree);
    const common = await git.commonDir();
    const folders = [path.join(common, 'info'), path.join(common, 'hooks')];
    const configs = [...new Set([...(await configFiles(git)), await git.gitPath('config.worktree')])];
    const snapshot = { folders, files: [], absent: [] };
    for (const file of configs) {
        const saved = await save(file);
        if (saved)
            snapshot.files.push(saved);
        else
            snapshot.absent.push(file);
    }
    for (const folder of folders) {
        const found = [];
        await walk(folder, found);
        for (const file of found) {
            const saved = await save(file);
            if (saved)
                snapshot.files.push(saved);
        }
    }
    return snapshot;
}
/**
 * Puts back everything the snapshot holds, removing what was added since (never following a symlink).
 * Answers the paths that had changed; throws only when one cannot be put back.
 */
async function restoreGitDir(snapshot) {
    const changed = new Set();
    const wanted = new Map(snapshot.files.map(f => [f.path, f]));
    for (const folder of snapshot.folders) {
        if ((await kind(folder)) === 'other') {
            await rm(folder, { force: true });
            changed.add(folder);
        }
        const now = [];
        await walk(folder, now);
        for (const file of now)
            if (!wanted.has(file)) {
                await rm(file, { recursive: true, force: true });
                changed.add(file);
            }
    }
    for (const file of snapshot.absent)
        if ((await kind(file)) !== undefined) {
            await rm(file, { recursive: true, force: true });
            changed.add(file);
        }
    for (const saved of snapshot.files) {
        const content = Buffer.from(saved.content, 'base64');
        const now = await lstat(saved.path).catch(() => undefined);
        if (now?.isFile() && (now.mode & 0o7777) === saved.mode && (await readFile(saved.path)).equals(content))
            continue;
        if (now)
            await rm(saved.path, { recursive: true, force: true });
        await mkdir(path.dirname(saved.path), { recursive: true });
        await writeFile(saved.path, content, { mode: saved.mode });
        await chmod(saved.path, saved.mode);
        changed.add(saved.path);
    }
    return [...changed];
}

;// CONCATENATED MODULE: ./src/git/push.ts
// Pushes the loop's branch with the action's token. The push runs from a scratch git directory that borrows
// the work tree's objects (alternates): whatever the agent wrote into .git/config or .git/hooks (a pre-push
// hook, a remote URL pointing elsewhere, an insteadOf rewrite, a proxy) plays no part, and the token goes
// only to the GitHub server, for this one command.







/** Branches under this prefix belong to the action: it may replace them (with a lease). */
const OWNED_BRANCH_PREFIX = 'ralph/';
/** Known reasons a push fails, each with the fix in `PUSH_FAILURE_FIXES`. */
const push_PUSH_FAILURE = {
    /** A change under .github/workflows/ pushed with a token lacking the `workflows` permission. */
    workflowsPermission: 'workflows_permission',
    /** Branch protection or a ruleset refused the update. */
    protectedBranch: 'protected_branch',
    /** The remote branch has commits this run does not have (a plain push). */
    nonFastForward: 'non_fast_forward',
    /** The remote branch moved since the run started (a `--force-with-lease` push). */
    staleLease: 'stale_lease',
    /** The token was refused: missing, invalid or expired. */
    authFailed: 'auth_failed',
    /** The token is valid but may not write to the repository. */
    permissionDenied: 'permission_denied',
    unknown: 'unknown'
};
/** GitHub's own words, as they appear in git's output (matched as substrings or patterns). */
const GITHUB_PUSH_ERRORS = {
    workflows: /refusing to allow an? (GitHub App|OAuth App|Personal Access Token) to create or update workflow `([^`]+)` without `(workflows?)` (permission|scope)/,
    protectedBranch: /GH006: Protected branch update failed|protected branch hook declined|GH013: Repository rule violations found|push declined due to repository rule violations/,
    staleLease: /\(stale info\)|\[rejected\] \(stale info\)/,
    nonFastForward: /\((non-fast-forward|fetch first)\)|Updates were rejected because/,
    permissionDenied: /Permission to \S+ denied to|Write access to repository not granted|The requested URL returned error: 403/,
    authFailed: /Authentication failed for|Invalid username or (password|token)|could not read (Username|Password) for|The requested URL returned error: 401/
};
async function push_pushBranch(workTree, options) {
    const repo = new GitRepo(workTree);
    const log = options.log ?? (() => undefined);
    const remote = options.remote ?? 'origin';
    const { branch } = options;
    const target = `refs/heads/${branch}`;
    const sha = (await repo.commitOf(options.ref ?? `refs/heads/${branch}`)) ??
        (options.ref ? undefined : await repo.commitOf('HEAD'));
    if (!sha)
        throw new Error(`There is nothing to push: '${options.ref ?? branch}' names no commit.`);
    const url = repositoryUrl(options.serverUrl, options.repository);
    const owned = branch.startsWith(OWNED_BRANCH_PREFIX) || options.leaseSha === null;
    const lease = owned && options.leaseSha !== undefined ? options.leaseSha : undefined;
    const args = ['push', '--porcelain', '--no-verify', '--no-recurse-submodules'];
    if (lease !== undefined)
        args.push(`--force-with-lease=${target}:${lease ?? ''}`);
    else if (options.leaseSha && !owned)
        log(`'${branch}' is not a branch the action owns: pushing without force (a fast-forward only).`);
    args.push('--end-of-options', url, `${sha}:${target}`);
    const scratch = await scratchGitDir(repo);
    try {
        const auth = { token: options.token, serverUrl: options.serverUrl };
        const result = await runGit(['--git-dir', scratch.gitDir, ...args], {
            cwd: scratch.gitDir,
            // Hermetic: no global config (its trace2 target, its insteadOf rewrites), no hooks, no secret but ours.
            env: hermeticGitEnvironment([
                ['core.hooksPath', scratch.hooks],
                // Belt and braces: no rewrite of our URL, wherever one might come from.
                [`url.${url}.insteadOf`, url],
                [`url.${url}.pushInsteadOf`, url],
                // A stalled transport is cut off, so the push can be tried again (push-retry.ts).
                ['http.lowSpeedLimit', '1'],
                ['http.lowSpeedTime', String(options.stallSeconds ?? 60)],
                ...authConfig(auth)
            ])
        });
        const output = [result.stdout.trim(), result.stderr.trim()].filter(Boolean).join('\n');
        const status = porcelainStatus(result.stdout, target);
        if (result.exitCode === 0 && status !== '!') {
            await repo.exec(['update-ref', `refs/remotes/${remote}/${branch}`, sha], { probe: true });
            const forced = status === '+';
            log(status === '='
                ? `'${branch}' on ${options.repository} is already at ${sha.slice(0, 7)}.`
                : `Pushed ${sha.slice(0, 7)} to '${branch}' on ${options.repository}${forced ? ' (replacing its previous history, with a lease)' : ''}.`);
            return { pushed: true, sha, forced, output };
        }
        const error = classifyPushFailure(output, { branch, repository: options.repository, lease });
        log(error.message);
        return { pushed: false, sha, forced: false, error, output };
    }
    finally {
        await rm(scratch.root, { recursive: true, force: true });
    }
}
/** Turns git's push output into a known failure with its fix. */
function classifyPushFailure(output, context) {
    const { branch, repository } = context;
    const detail = output
        .split('\n')
        .filter(line => /^(remote:|!|\s*!|error:|fatal:|hint:)/.test(line) && !/^remote:\s*$/.test(line))
        .join('\n');
    const workflow = GITHUB_PUSH_ERRORS.workflows.exec(output);
    if (workflow) {
        const [, actor, file, permission] = workflow;
        return {
            kind: push_PUSH_FAILURE.workflowsPermission,
            workflowFile: file,
            detail,
            message: `GitHub refused the push because it changes the workflow file ${file}, and the token lacks the ` +
                `\`${permission}\` ${permission === 'workflows' ? 'permission' : 'scope'} (it acts as ${actor === 'GitHub App' ? 'a GitHub App — GITHUB_TOKEN can never have it' : `a ${actor}`}). ` +
                `Push with a fine-grained PAT or GitHub App token that has "Workflows: read and write" (a classic PAT needs the \`workflow\` scope), ` +
                `or keep the loop away from .github/workflows/. The change is kept as a patch with the run's record.`
        };
    }
    if (GITHUB_PUSH_ERRORS.protectedBranch.test(output)) {
        return {
            kind: push_PUSH_FAILURE.protectedBranch,
            detail,
            message: `GitHub refused the push to '${branch}': the branch is protected (a branch protection rule or ruleset). ` +
                `Let the loop push to a branch of its own (the default ralph/…) and merge through the pull request, ` +
                `or allow this token's actor to bypass the rule in Settings → Rules (or Branches).`
        };
    }
    if (GITHUB_PUSH_ERRORS.staleLease.test(output)) {
        return {
            kind: push_PUSH_FAILURE.staleLease,
            detail,
            message: `'${branch}' changed on ${repository} while the loop ran (it was expected at ${context.lease ? context.lease.slice(0, 7) : 'nothing: not to exist'}): ` +
                `the action does not overwrite commits it has not seen. Re-run to start again from the branch as it is now.`
        };
    }
    if (GITHUB_PUSH_ERRORS.nonFastForward.test(output)) {
        return {
            kind: push_PUSH_FAILURE.nonFastForward,
            detail,
            message: `'${branch}' on ${repository} has commits this run does not have (pushed while the loop ran), and the action ` +
                `force-pushes only onto branches it owns (${OWNED_BRANCH_PREFIX}…). Re-run to continue from the new tip.`
        };
    }
    if (GITHUB_PUSH_ERRORS.permissionDenied.test(output)) {
        return {
            kind: push_PUSH_FAILURE.permissionDenied,
            detail,
            message: `The token may not push to ${repository}. For GITHUB_TOKEN give the job \`permissions: contents: write\` ` +
                `(and check Settings → Actions → General → Workflow permissions); for a PAT or App token, grant it ` +
                `"Contents: read and write" on ${repository}.`
        };
    }
    if (GITHUB_PUSH_ERRORS.authFailed.test(output)) {
        return {
            kind: push_PUSH_FAILURE.authFailed,
            detail,
            message: `GitHub did not accept the token for ${repository} (missing, invalid or expired). Check the token given to the action.`
        };
    }
    return {
        kind: push_PUSH_FAILURE.unknown,
        detail,
        message: `The push of '${branch}' to ${repository} failed: ${detail || output || 'git gave no reason'}`
    };
}
/** The porcelain status flag of one ref (` ` fast-forward, `+` forced, `-` deleted, `*` new, `!` rejected, `=` up to date). */
function porcelainStatus(stdout, target) {
    for (const line of stdout.split('\n')) {
        const [flag, refs] = line.split('\t');
        if (refs?.endsWith(`:${target}`))
            return flag;
    }
    return undefined;
}
/**
 * A bare git directory with no config, hooks or templates of its own that sees the work tree's objects
 * (and its shallow boundary, so a shallow clone can push).
 */
async function scratchGitDir(repo) {
    const root = await mkdtemp(path.join(tmpdir(), 'ralph-push-'));
    try {
        const gitDir = path.join(root, 'git');
        const hooks = path.join(root, 'no-hooks');
        await mkdir(hooks);
        await repo.exec(['init', '--quiet', '--bare', '--template=', `--object-format=${await repo.objectFormat()}`, gitDir], {
            env: { GIT_DIR: undefined, GIT_WORK_TREE: undefined }
        });
        await mkdir(path.join(gitDir, 'objects', 'info'), { recursive: true });
        await writeFile(path.join(gitDir, 'objects', 'info', 'alternates'), `${await repo.gitPath('objects')}\n`);
        const shallow = await repo.gitPath('shallow');
        await copyFile(shallow, path.join(gitDir, 'shallow')).catch(() => undefined);
        return { root, gitDir, hooks };
    }
    catch (error) {
        await rm(root, { recursive: true, force: true });
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/git/push-retry.ts
// A push that failed in transit (a reset connection, a 5xx, a stall) is tried again, a few times with a
// backoff; a push GitHub refused (a protected branch, the workflow permission, a lease, the token) is not, and
// keeps its message. Trying again is safe: the lease on the action's own branch and fast-forward-only on a
// person's still hold, and a push whose first try landed unanswered finds the branch up to date: a success.
// A refusal that may be such a landing (the branch moved, a lease) is pushed once more to tell which.

/** git's words for a push that never got the server's verdict. */
const TRANSIENT_PUSH_ERRORS = /The requested URL returned error: (5\d\d|429)|RPC failed|Empty reply from server|Connection reset|Recv failure|Send failure|Operation too slow|Operation timed out|Failed to connect|Could not resolve host|Connection refused|remote end hung up unexpectedly|unexpected disconnect|early EOF|transfer closed|was not closed cleanly/i;
/**
 * A refusal that may only mean an earlier try landed without its answer: curl sends a POST again by itself
 * when its connection was reset, and that second one finds the branch already moved.
 */
const MAYBE_LANDED = /failed to update ref|cannot lock ref/;
function maybeLanded(result) {
    const kind = result.error?.kind;
    return (!result.pushed &&
        (kind === PUSH_FAILURE.staleLease ||
            kind === PUSH_FAILURE.nonFastForward ||
            (kind === PUSH_FAILURE.unknown && MAYBE_LANDED.test(result.output))));
}
/** Whether a failed push failed in transit, not by a refusal. */
function failedInTransit(result) {
    return (!result.pushed && result.error?.kind === PUSH_FAILURE.unknown && TRANSIENT_PUSH_ERRORS.test(result.output));
}
/** pushBranch, tried again while it fails in transit. */
async function pushWithRetry(workTree, options, retry) {
    const log = options.log ?? (() => undefined);
    let looked = false;
    for (let attempt = 1;; attempt++) {
        const result = await pushBranch(workTree, options);
        if (maybeLanded(result) && !looked) {
            // Pushed again, the same commit finds the branch up to date if it landed; else the same refusal.
            looked = true;
            log('Pushing once more, to tell a refusal from an earlier try that landed unanswered.');
            attempt--;
            continue;
        }
        if (!failedInTransit(result))
            return result;
        const wait = retry.waitMs(attempt);
        const late = retry.deadline !== undefined && Date.now() + wait > retry.deadline;
        if (attempt >= retry.attempts || late)
            return result;
        log(`The push did not get through (${result.output
            .split('\n')
            .find(line => TRANSIENT_PUSH_ERRORS.test(line))
            ?.trim()}); trying again in ${Math.round(wait)} ms (push ${attempt + 1} of ${retry.attempts}).`);
        await new Promise(resolve => setTimeout(resolve, wait));
    }
}

;// CONCATENATED MODULE: ./src/git/index.ts










;// CONCATENATED MODULE: ./src/loop/protected.ts
// Protected paths: what judges the agent (tests that existed, check scripts, runner configuration, the ralph's
// folder, .github/) is put back from the start commit before every gate run, so the verdict is the action's.
// The decisions (which globs, does a path match) are pure; finding changes reads the tree as the action's
// user without following a link; the writes run as the agent's user (its runProcess), so the tree stays its own.








/** A protected path could not be put back: the gates must not judge this tree. */
class ProtectedPathError extends Error {
    constructor(message) {
        super(message);
        this.name = 'ProtectedPathError';
    }
}
/** Test files by the common conventions: the agent may add tests, never weaken the ones that judge it. */
const TEST_FILE_GLOBS = [
    '**/*.test.*',
    '**/*.spec.*',
    '**/test_*.py',
    '**/*_test.py',
    '**/*_test.go',
    '**/__tests__/**',
    '**/test/**',
    '**/tests/**'
];
/**
 * What a test runner reads to decide what and how to run: a new one anywhere (a `jest.config.js` beside a
 * protected `jest.config.ts`, a `conftest.py` in a subfolder, a `GNUmakefile` before the `Makefile`) is removed.
 */
const RUNNER_CONFIG_GLOBS = [
    '**/jest.config.*',
    '**/jest.setup.*',
    '**/vitest.config.*',
    '**/vitest.workspace.*',
    '**/vitest.setup.*',
    '**/vite.config.*',
    '**/.mocharc*',
    '**/.ava.config.*',
    '**/ava.config.*',
    '**/babel.config.*',
    '**/.babelrc*',
    '**/tsconfig*.json',
    '**/.npmrc',
    '**/.yarnrc',
    '**/.yarnrc.yml',
    '**/.pnpmfile.cjs',
    '**/bunfig.toml',
    '**/.node-options',
    '**/pytest.ini',
    '**/.pytest.ini',
    // A module named as the runner wins over it (`python -m pytest` runs ./pytest.py); jest's manual mocks of
    // a package replace it; Go's module files pick which code a path names.
    'pytest.py',
    'pytest/**',
    '**/__mocks__/**',
    '**/go.mod',
    '**/go.work',
    '**/pyproject.toml',
    '**/setup.cfg',
    '**/tox.ini',
    '**/noxfile.py',
    '**/conftest.py',
    '**/.coveragerc',
    '**/Makefile',
    '**/makefile',
    '**/GNUmakefile'
];
/** Gate programs whose runner reads package.json (its scripts, and its jest/mocha/type/imports fields). */
const PACKAGE_JSON_RUNNERS = new Set([
    'npm',
    'npx',
    'yarn',
    'pnpm',
    'bun',
    'node',
    'jest',
    'vitest',
    'mocha',
    'ava',
    'tsx',
    'ts-node'
]);
/** Directories the search for new protected paths does not enter (dependencies, git's own). */
const NOT_SEARCHED = new Set(['.git', 'node_modules']);
/** Entries the search looks at, at most: past that, the check fails (closed) rather than pass unlooked. */
const MOST_SEARCHED = 200_000;
const toPosix = (p) => p.split((external_node_path_default()).sep).join('/');
/** `dir` relative to the top, or undefined when it is outside it. */
function insideTop(top, file) {
    const rel = toPosix(external_node_path_default().relative(top, file));
    return rel.startsWith('..') || external_node_path_default().isAbsolute(rel) ? undefined : rel;
}
/** The words of a gate that may name a path: its shell words, and the pieces of those split at shell syntax. */
function gateWords(run) {
    const pieces = shellWords(run).flatMap(word => [word, ...word.split(/[\s;&|()<>`"'=,]+/)]);
    return [...new Set(pieces.filter(p => p !== '' && p !== '.' && p !== '..' && !p.startsWith('-')))];
}
function shellWords(run) {
    try {
        return shlex_shlexSplit(run);
    }
    catch {
        return run.split(/\s+/);
    }
}
/** Programs whose first word that is not an option is the script they run. */
const INTERPRETERS = new Set([
    'bash',
    'sh',
    'dash',
    'zsh',
    'ksh',
    'node',
    'python',
    'python3',
    'ruby',
    'perl',
    'php',
    'deno',
    'bun'
].concat(['tsx', 'ts-node', 'pwsh', 'source', '.']));
/** Programs that run the command that follows them. */
const WRAPPERS = new Set(['env', 'timeout', 'nice', 'nohup', 'time', 'exec', 'command', 'xargs', 'stdbuf']);
/** Words that end one simple command and start another. */
const SEPARATOR = /^(;|&&|\|\||\||&|\(|\)|\{|\}|!|if|then|else|elif|do|while|until)$/;
/**
 * The files a gate runs, not those it reads as data: each simple command's program, an interpreter's script
 * (`bash check.sh`, `node scripts/verify.js`; `bash -c '…'` read again), and a runner's configuration
 * (`--config x`). `grep -q 'a + b' calc.js` runs grep: calc.js is the code the agent is asked to change.
 */
function filesRun(run, depth = 0) {
    const words = shellWords(run);
    const out = [];
    let start = true;
    for (let i = 0; i < words.length; i++) {
        const word = words[i].replace(/;+$/, '');
        const ends = words[i] !== word;
        if (SEPARATOR.test(word)) {
            start = true;
            continue;
        }
        const config = /^(-c|--?(config|config-file|rcfile|settings))(=(.*))?$/.exec(word);
        if (config) {
            const value = config[4] ?? words[i + 1];
            if (value)
                out.push(value);
        }
        else if (start && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) && !/^-|^\d+[smhd]?$/.test(word)) {
            const name = external_node_path_default().posix.basename(word);
            out.push(word);
            start = WRAPPERS.has(name);
            if (INTERPRETERS.has(name))
                for (let j = i + 1; j < words.length; j++) {
                    if (words[j] === '-c' && words[j + 1] !== undefined) {
                        if (depth < 2)
                            out.push(...filesRun(words[j + 1], depth + 1));
                        i = j + 1;
                        break;
                    }
                    if (words[j] === '-m')
                        break;
                    if (words[j].startsWith('-'))
                        continue;
                    out.push(words[j].replace(/;+$/, ''));
                    if (words[j].endsWith(';'))
                        start = true;
                    i = j;
                    break;
                }
        }
        if (ends)
            start = true;
    }
    return out;
}
/**
 * The rules `auto` stands for, given the start commit's files: the ralph's folder, .github/, every file a
 * gate runs (filesRun), package.json for JavaScript gates, runner configuration, and the tests that exist.
 */
function autoRules(facts, baseFiles) {
    const rules = [];
    // A ralph whose folder is the project (or the repository) protects its RALPH.md, not every file beside it.
    if (facts.ralphDir !== undefined && facts.ralphDir !== '' && facts.ralphDir !== facts.projectDir)
        rules.push({ glob: `${facts.ralphDir}/**`, scope: 'all', why: "auto: the ralph's own folder" });
    else if (facts.ralphFile !== undefined)
        rules.push({ glob: facts.ralphFile, scope: 'base', why: "auto: the ralph's RALPH.md" });
    rules.push({ glob: '.github/**', scope: 'all', why: 'auto: .github/ (workflows, actions)' });
    let javascript = false;
    for (const check of facts.checks) {
        for (const word of gateWords(check.run))
            if (PACKAGE_JSON_RUNNERS.has(external_node_path_default().posix.basename(word)))
                javascript = true;
        for (const word of filesRun(check.run)) {
            if (/[$*?[{]/.test(word))
                continue;
            const rel = external_node_path_default().posix.normalize(external_node_path_default().posix.join(facts.projectDir, word.replace(/^\.\//, '')));
            if (rel.startsWith('..') || rel === '.' || external_node_path_default().posix.isAbsolute(word))
                continue;
            // A file, not a folder: `eslint src` names the code the agent is asked to change.
            if (baseFiles.has(rel))
                rules.push({ glob: rel, scope: 'base', why: `auto: run by a gate (${check.run})` });
        }
    }
    if (javascript)
        for (const dir of new Set(['', facts.projectDir])) {
            const file = dir === '' ? 'package.json' : `${dir}/package.json`;
            if (baseFiles.has(file))
                rules.push({
                    glob: file,
                    scope: 'base',
                    why: 'auto: package.json (its scripts and fields steer the runner)'
                });
        }
    for (const glob of RUNNER_CONFIG_GLOBS)
        rules.push({ glob, scope: 'all', why: "auto: a test runner's configuration" });
    for (const glob of TEST_FILE_GLOBS)
        rules.push({ glob, scope: 'base', why: 'auto: a test file of the start commit' });
    return rules;
}
/** The rules a setting stands for: `auto` expanded, every other glob protecting what matches it (new paths too). */
function protectRules(setting, facts, baseFiles) {
    if (setting.includes('none'))
        return [];
    return setting.flatMap(glob => glob === 'auto'
        ? autoRules(facts, baseFiles)
        : [{ glob, scope: 'all', why: `protected: ${glob}` }]);
}
const regexCache = new Map();
/** A glob as a regular expression over `/` paths: `**` any folders, `*` and `?` within a name, `[…]`, `{a,b}`. */
function globRegExp(glob) {
    const cached = regexCache.get(glob);
    if (cached)
        return cached;
    let source = '';
    const g = glob.replace(/\/+$/, '/**');
    for (let i = 0; i < g.length; i++) {
        const c = g[i];
        if (c === '*' && g[i + 1] === '*') {
            const atStart = i === 0 || g[i - 1] === '/';
            const slashAfter = g[i + 2] === '/';
            if (atStart && slashAfter) {
                source += '(?:.*/)?';
                i += 2;
            }
            else if (atStart && i + 2 === g.length) {
                source += '.*';
                i += 1;
            }
            else {
                source += '[^/]*';
                i += 1;
            }
        }
        else if (c === '*')
            source += '[^/]*';
        else if (c === '?')
            source += '[^/]';
        else if (c === '[') {
            const end = g.indexOf(']', i + 2);
            if (end === -1)
                source += '\\[';
            else {
                const body = g
                    .slice(i + 1, end)
                    .replace(/^!/, '^')
                    .replace(/\\/g, '\\\\');
                source += `[${body}]`;
                i = end;
            }
        }
        else if (c === '{') {
            const end = g.indexOf('}', i);
            if (end === -1)
                source += '\\{';
            else {
                const options = g.slice(i + 1, end).split(',');
                source += `(?:${options.map(o => o.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*')).join('|')})`;
                i = end;
            }
        }
        else
            source += c.replace(/[.+^${}()|\\/]/g, '\\$&');
    }
    const re = new RegExp(`^${source}$`);
    regexCache.set(glob, re);
    return re;
}
/** Whether a glob names the path itself or a folder holding it. */
function globMatches(glob, file) {
    const re = globRegExp(glob);
    if (re.test(file))
        return true;
    for (let dir = external_node_path_default().posix.dirname(file); dir !== '.'; dir = external_node_path_default().posix.dirname(dir))
        if (re.test(dir))
            return true;
    return false;
}
/** The first rule protecting a path of the start commit (`base`: it is in it), or undefined. */
function ruleFor(rules, file, base) {
    return rules.find(rule => (base || rule.scope === 'all') && globMatches(rule.glob, file));
}
/** Every file (and link) of a commit, from git's object store: path → mode and blob. */
async function baseEntries(top, base) {
    const out = await new repo_GitRepo(top).bytes(['ls-tree', '-r', '-z', '--full-tree', base]);
    const entries = new Map();
    for (const record of out.toString('utf8').split('\0')) {
        const tab = record.indexOf('\t');
        if (tab === -1)
            continue;
        const [mode, type, oid] = record.slice(0, tab).split(' ');
        if (type === 'blob')
            entries.set(record.slice(tab + 1), { mode, oid });
    }
    return entries;
}
/**
 * The protections of a run: `setting` (parseProtectSetting's list) resolved against the start commit `base`
 * of the repository whose top is `top`.
 */
async function resolveProtection(top, base, setting, facts) {
    const all = await baseEntries(top, base);
    return protectionFromRules(top, base, protectRules(setting, facts, new Set(all.keys())), facts.guardrails);
}
/** The top of the repository holding `dir` (real path), by the hermetic git. */
async function repositoryTop(dir) {
    const result = await new repo_GitRepo(dir).exec(['rev-parse', '--show-toplevel']);
    return result.stdout.trim();
}
/** Work of a check in stretches of at most this long, then the event loop runs (budgets' timers, output). */
const STRETCH_MS = 20;
/** One look at the tree: each folder on the way looked at once, and the event loop let run between stretches. */
class Pass {
    top;
    /** A folder's verdict (relative to the top): undefined when it is a folder, else what is there instead. */
    folders = new Map();
    stretchStarted = external_node_perf_hooks_namespaceObject.performance.now();
    /** When the pass began, in nanoseconds since the epoch: a file changed since then may change again unseen. */
    startedNs;
    constructor(top, now) {
        this.top = top;
        this.startedNs = BigInt(Math.floor(now)) * 1000000n;
    }
    /** Whether the current stretch of work is long enough. */
    due() {
        return external_node_perf_hooks_namespaceObject.performance.now() - this.stretchStarted >= STRETCH_MS;
    }
    /** Lets the event loop run, then starts a new stretch. */
    async pause() {
        await new Promise(resolve => setImmediate(resolve));
        this.stretchStarted = external_node_perf_hooks_namespaceObject.performance.now();
    }
    /** What is at `rel`, looking at every folder on the way (once a pass) without following one that is a link. */
    inspect(rel) {
        const slash = rel.lastIndexOf('/');
        const folder = slash === -1 ? undefined : this.folder(rel.slice(0, slash));
        if (folder)
            return folder;
        const at = external_node_path_default().join(this.top, rel);
        let stat;
        try {
            stat = (0,external_node_fs_namespaceObject.lstatSync)(at, { bigint: true });
        }
        catch (error) {
            const code = error.code;
            if (code === 'ENOENT' || code === 'ENOTDIR')
                return { kind: 'missing' };
            return { kind: 'other', why: 'made unreadable' };
        }
        if (stat.isSymbolicLink())
            return { kind: 'link', target: (0,external_node_fs_namespaceObject.readlinkSync)(at) };
        if (stat.isDirectory())
            return { kind: 'other', why: 'replaced by a folder' };
        if (!stat.isFile())
            return { kind: 'other', why: 'replaced by a special file' };
        return { kind: 'file', stat };
    }
    /** Undefined when `dir` and every folder above it are folders; else what the path below it finds. */
    folder(dir) {
        if (this.folders.has(dir))
            return this.folders.get(dir);
        const slash = dir.lastIndexOf('/');
        let found = slash === -1 ? undefined : this.folder(dir.slice(0, slash));
        if (!found) {
            let stat;
            try {
                stat = (0,external_node_fs_namespaceObject.lstatSync)(external_node_path_default().join(this.top, dir));
            }
            catch (error) {
                const code = error.code;
                stat = undefined;
                found =
                    code === 'ENOENT' || code === 'ENOTDIR'
                        ? { kind: 'missing' }
                        : { kind: 'other', why: 'made unreadable' };
            }
            if (stat?.isSymbolicLink())
                found = { kind: 'other', why: `a folder on its way (${dir}) replaced by a link` };
            else if (stat && !stat.isDirectory())
                found = { kind: 'other', why: `a folder on its way (${dir}) replaced by a file` };
        }
        this.folders.set(dir, found);
        return found;
    }
}
/** Per protection: the stat keys of its files found unchanged. */
const verified = new WeakMap();
const statKey = (stat) => ({
    dev: stat.dev,
    ino: stat.ino,
    size: stat.size,
    mode: stat.mode,
    ctimeNs: stat.ctimeNs,
    mtimeNs: stat.mtimeNs
});
const sameStat = (key, stat) => key.dev === stat.dev &&
    key.ino === stat.ino &&
    key.size === stat.size &&
    key.mode === stat.mode &&
    key.ctimeNs === stat.ctimeNs &&
    key.mtimeNs === stat.mtimeNs;
/**
 * A change this close to the look could share its ctime with a later one (file systems keep times to a tick,
 * some to a second or two), so such a file is hashed again next time (git's "racily clean" entries).
 */
const RACY_NS = 2000000000n;
/**
 * The git blob id of a regular file, read without following a link (O_NOFOLLOW), in the repository's hash;
 * with its stat key when the file did not change while it was read and did not change just before.
 */
async function blobId(file, algorithm, pass) {
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(file, external_node_fs_namespaceObject.constants.O_RDONLY | external_node_fs_namespaceObject.constants.O_NOFOLLOW | external_node_fs_namespaceObject.constants.O_NONBLOCK);
    }
    catch {
        return undefined;
    }
    try {
        const before = (0,external_node_fs_namespaceObject.fstatSync)(fd, { bigint: true });
        if (!before.isFile())
            return undefined;
        const hash = (0,external_node_crypto_namespaceObject.createHash)(algorithm).update(`blob ${before.size}\0`);
        const buffer = Buffer.alloc(Number(before.size < 1n << 20n ? (before.size > 0n ? before.size : 1n) : 1n << 20n));
        let total = 0n;
        for (;;) {
            const n = (0,external_node_fs_namespaceObject.readSync)(fd, buffer, 0, buffer.length, null);
            if (n === 0)
                break;
            hash.update(buffer.subarray(0, n));
            total += BigInt(n);
            if (pass.due())
                await pass.pause();
        }
        if (total !== before.size)
            return undefined;
        const oid = hash.digest('hex');
        const after = (0,external_node_fs_namespaceObject.fstatSync)(fd, { bigint: true });
        const settled = sameStat(statKey(before), after) && before.ctimeNs < pass.startedNs - RACY_NS;
        return settled ? { oid, key: statKey(before) } : { oid };
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** What differs at one protected path of the start commit, in words; undefined when it is as it was. */
async function differs(pass, rel, entry, known) {
    const found = pass.inspect(rel);
    if (found.kind === 'missing')
        return 'deleted';
    if (found.kind === 'other')
        return found.why;
    if (entry.mode === '120000') {
        if (found.kind !== 'link')
            return 'a link replaced by a file';
        const expected = (0,external_node_crypto_namespaceObject.createHash)(entry.oid.length === 64 ? 'sha256' : 'sha1')
            .update(`blob ${Buffer.byteLength(found.target)}\0${found.target}`)
            .digest('hex');
        return expected === entry.oid ? undefined : 'the link changed';
    }
    if (found.kind === 'link')
        return 'replaced by a link';
    const key = known.get(rel);
    if (!key || !sameStat(key, found.stat)) {
        known.delete(rel);
        const blob = await blobId(external_node_path_default().join(pass.top, rel), entry.oid.length === 64 ? 'sha256' : 'sha1', pass);
        if (blob === undefined)
            return 'made unreadable';
        if (blob.oid !== entry.oid)
            return 'changed';
        // Kept only when it is the file lstat saw (not one swapped in meanwhile).
        if (blob.key && blob.key.dev === found.stat.dev && blob.key.ino === found.stat.ino)
            known.set(rel, blob.key);
    }
    const executable = (Number(found.stat.mode) & 0o100) !== 0;
    if (executable !== (entry.mode === '100755'))
        return executable ? 'made executable' : 'its executable bit removed';
    return undefined;
}
/** New paths where every path is protected (a rule of scope `all`), found without following links. */
async function added(protection, pass) {
    const allRules = protection.rules.filter(rule => rule.scope === 'all');
    if (allRules.length === 0)
        return [];
    const patterns = allRules.map(rule => globRegExp(rule.glob));
    // Most names match no rule: one test of them all rules them out.
    const any = new RegExp(`^(?:${patterns.map(re => re.source.slice(1, -1)).join('|')})$`);
    const found = [];
    let seen = 0;
    // `within[i]`: rule i names the folder or one above it (globMatches, decided once a folder).
    const walk = async (dir, within) => {
        let entries;
        try {
            entries = (0,external_node_fs_namespaceObject.readdirSync)(external_node_path_default().join(protection.top, dir), { withFileTypes: true });
        }
        catch {
            return;
        }
        for (const entry of entries) {
            if (++seen > MOST_SEARCHED)
                throw new ProtectedPathError(`the work tree holds over ${MOST_SEARCHED.toLocaleString('en-US')} entries outside node_modules and .git, too many to look through for new files where none may be added: set protected-paths to none for this repository`);
            if (pass.due())
                await pass.pause();
            const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
            if (entry.isDirectory()) {
                if (!NOT_SEARCHED.has(entry.name))
                    await walk(rel, patterns.map((re, i) => within[i] || re.test(rel)));
                continue;
            }
            if (protection.paths.has(rel) || rel === protection.guardrails)
                continue;
            // A link may stand for a folder: one where a protected folder would be is as new as a file in it.
            let i = within.indexOf(true);
            if (any.test(rel))
                i = patterns.findIndex((re, j) => within[j] || re.test(rel));
            if (i === -1 && entry.isSymbolicLink())
                i = patterns.findIndex(re => re.test(`${rel}/-`));
            if (i !== -1)
                found.push({
                    path: rel,
                    why: `added where paths are protected (${allRules[i].why.replace(/^auto: /, '')})`
                });
        }
    };
    await walk('', patterns.map(() => false));
    return found;
}
/**
 * Every protected path the tree no longer has as the start commit had it, and every new one where none may be
 * added. A file found unchanged is hashed again only when its stat key changed (`now`: the wall clock, in ms).
 */
async function findChanges(protection, options = {}) {
    const pass = new Pass(protection.top, (options.now ?? Date.now)());
    let known = verified.get(protection);
    if (!known)
        verified.set(protection, (known = new Map()));
    const changes = [];
    for (const [rel, entry] of protection.paths) {
        const why = await differs(pass, rel, entry, known);
        if (why)
            changes.push({ path: rel, why });
        if (pass.due())
            await pass.pause();
    }
    return [...changes, ...(await added(protection, pass))];
}
const quote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;
const HEREDOC_END = 'RALPH_PROTECTED_PATH_END';
/**
 * The shell script that puts `reverts` back (POSIX sh and coreutils, so the agent's own user can run it): what
 * is in the way is removed (a link is removed, never followed), folders made, each file written from its blob.
 */
function restoreScript(protection, reverts, blobs) {
    const lines = ['set -e', 'umask 022', `cd -- ${quote(protection.top)}`];
    // What goes comes first: a link removed where a protected folder was must not take its restored files with it.
    const added = reverts.filter(r => !protection.paths.has(r.path));
    for (const revert of [...added, ...reverts.filter(r => protection.paths.has(r.path))]) {
        const entry = protection.paths.get(revert.path);
        // A folder on the way that is now a link or a file goes, then the path itself, whatever it is.
        const parts = revert.path.split('/');
        for (let i = 1; i < parts.length; i++) {
            const dir = parts.slice(0, i).join('/');
            lines.push(`if [ -L ${quote(dir)} ] || { [ -e ${quote(dir)} ] && [ ! -d ${quote(dir)} ]; }; then rm -f -- ${quote(dir)}; fi`);
            lines.push(`[ -d ${quote(dir)} ] || mkdir -- ${quote(dir)}`);
            // A folder the agent closed to others (the action's user reads it to look again); not fatal when not its own.
            lines.push(`chmod u+rwx,go+rx -- ${quote(dir)} 2>/dev/null || true`);
        }
        lines.push(`rm -rf -- ${quote(revert.path)}`);
        if (!entry)
            continue;
        const content = blobs.get(entry.oid) ?? Buffer.alloc(0);
        if (entry.mode === '120000') {
            lines.push(`ln -s -- ${quote(content.toString('utf8'))} ${quote(revert.path)}`);
            continue;
        }
        const encoded = content.toString('base64').replace(/.{1,76}/g, '$&\n');
        lines.push(`base64 -d > ${quote(revert.path)} <<'${HEREDOC_END}'`, `${encoded}${HEREDOC_END}`);
        lines.push(`chmod ${entry.mode === '100755' ? '755' : '644'} -- ${quote(revert.path)}`);
    }
    return `${lines.join('\n')}\n`;
}
/** The blobs of `oids`, from git's object store (`cat-file --batch`). */
async function readBlobs(top, oids) {
    const unique = [...new Set(oids)];
    const blobs = new Map();
    if (unique.length === 0)
        return blobs;
    const out = await new repo_GitRepo(top).bytes(['cat-file', '--batch'], unique.map(oid => `${oid}\n`).join(''));
    let at = 0;
    for (const oid of unique) {
        const newline = out.indexOf(10, at);
        const header = out.subarray(at, newline).toString('utf8').split(' ');
        const size = Number(header[2]);
        if (header[0] !== oid || !Number.isInteger(size))
            throw new Error(`git cat-file gave no blob ${oid}`);
        blobs.set(oid, out.subarray(newline + 1, newline + 1 + size));
        at = newline + 1 + size + 1;
    }
    return blobs;
}
/**
 * Puts every protected path back as the start commit has it and removes what was added where nothing may be,
 * then looks again: answers what was put back, or throws ProtectedPathError when something could not be.
 */
async function restore(protection, options = {}) {
    const reverts = await findChanges(protection);
    if (reverts.length === 0)
        return [];
    const oids = reverts.flatMap(r => protection.paths.get(r.path)?.oid ?? []);
    const script = restoreScript(protection, reverts, await readBlobs(protection.top, oids));
    const run = options.runProcess ?? runProcess;
    const result = await run({
        argv: ['/bin/sh', '-s'],
        cwd: protection.top,
        env: { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' },
        input: script,
        timeoutMs: 120_000,
        ...(options.signal ? { signal: options.signal } : {})
    });
    const left = await findChanges(protection);
    if (result.exitCode !== 0 || left.length > 0) {
        const said = Buffer.concat([result.stderr.head, result.stderr.tail])
            .toString('utf8')
            .trim()
            .split('\n')[0];
        const still = left.map(r => `${r.path} (${r.why})`).join(', ');
        throw new ProtectedPathError(`protected paths could not be put back before the gates${still ? `: ${still}` : ''}${said ? ` (${said})` : ''}`);
    }
    return reverts;
}
/**
 * For another work tree (a clean checkout to verify): the rules a run recorded (status.json's `protected`),
 * applied there against `baseCommit`. Answers what was put back; throws ProtectedPathError when something
 * could not be. `runProcess` starts the restore's shell (as the agent's user, where the tree is the agent's).
 */
async function restoreProtected(workTree, baseCommit, rules, options = {}) {
    const top = await repositoryTop(workTree);
    return restore(await protectionFromRules(top, baseCommit, rules, options.guardrails), options);
}
/** The protections of `rules` (already resolved, e.g. from status.json) against the start commit. */
async function protectionFromRules(top, base, rules, guardrails) {
    const paths = new Map();
    if (rules.length > 0)
        for (const [file, entry] of await baseEntries(top, base))
            if (file !== guardrails && ruleFor(rules, file, true))
                paths.set(file, entry);
    return { top, base, rules: [...rules], paths, ...(guardrails !== undefined ? { guardrails } : {}) };
}
/** The paths of `changed` (relative to the top) that the delivered commit may not change, with why. */
function protectedChanges(rules, changed, guardrails) {
    return changed.flatMap(({ path: file, inBase }) => {
        if (file === guardrails)
            return [];
        const rule = ruleFor(rules, file, inBase);
        return rule ? [{ path: file, why: rule.why }] : [];
    });
}
/** One line for the prompt, the log and the record: each path and why. */
function revertsLine(reverts) {
    return reverts.map(r => `${r.path} (${r.why})`).join(', ');
}
/**
 * The loop's protections (undefined when off): `setting` against the start commit, with what `auto` needs from
 * the ralph (its folder, unless it is a ralph-less run's stand-in; its guardrails file) and the gates.
 */
async function protectionOf(config, workTree, base) {
    const setting = config.protect ?? [];
    if (setting.length === 0 || setting.includes('none'))
        return undefined;
    const top = await repositoryTop(workTree);
    const ralphDir = config.ralph.file !== '' ? insideTop(top, config.ralph.dir) : undefined;
    const ralphFile = config.ralph.file !== '' ? insideTop(top, config.ralph.file) : undefined;
    const guardrails = config.ralph.guardrails
        ? insideTop(top, external_node_path_default().resolve(workTree, config.ralph.guardrails))
        : undefined;
    return resolveProtection(top, base, setting, {
        ...(ralphDir !== undefined ? { ralphDir } : {}),
        ...(ralphFile !== undefined ? { ralphFile } : {}),
        ...(guardrails !== undefined ? { guardrails } : {}),
        checks: config.checks,
        projectDir: insideTop(top, workTree) ?? ''
    });
}
/**
 * The protected paths a commit changes against the start commit (the delivery's last check: the restore before
 * each gate run makes this empty). `rules` and `guardrails` as status.json's `protected` records them.
 */
async function protectedInCommit(dir, base, commit, rules, guardrails) {
    const out = await new GitRepo(dir).bytes([
        'diff',
        '--name-status',
        '-z',
        '--no-renames',
        base,
        commit,
        '--'
    ]);
    const fields = out.toString('utf8').split('\0');
    const changed = [];
    for (let i = 0; i + 1 < fields.length; i += 2)
        changed.push({ path: fields[i + 1], inBase: fields[i] !== 'A' });
    return protectedChanges(rules, changed, guardrails);
}
/**
 * The failing run that voids a round of gates during which protected paths changed: the code a gate runs
 * (the agent's) could have rewritten a later gate's script or a test not yet loaded. They are put back before
 * the next round.
 */
function changedDuringGates(changes) {
    return {
        name: 'protected paths',
        run: '(the action: what judges the agent, unchanged while it judges)',
        passed: false,
        exitCode: null,
        timedOut: false,
        durationMs: 0,
        outputBytes: 0,
        tail: `While the gates ran, protected paths changed: ${revertsLine(changes)}. Gates that run code which rewrites what judges it do not count; leave those paths alone.`,
        log: ''
    };
}

;// CONCATENATED MODULE: ./src/git/write-tree.ts
// A commit's files written out from git's object store, as they are stored: no checkout, so no smudge or
// textconv filter, no eol or ident conversion, no hook and no attribute of the tree (or of a .git the agent
// could write under isolation none) runs. The clean checkout that verifies a commit (loop/verify.ts) is made
// this way: git's own checkout would run whatever filter the agent planted, as the action's user.



/** The commit's entries: blobs (files and links) and gitlinks (an empty folder, as a checkout leaves them). */
async function entriesOf(repo, commit, env) {
    const out = await gitBytes(repo, ['ls-tree', '-r', '-z', '--full-tree', commit], { env });
    const entries = [];
    for (const record of out.toString('utf8').split('\0')) {
        const tab = record.indexOf('\t');
        if (tab === -1)
            continue;
        const [mode, , oid] = record.slice(0, tab).split(' ');
        entries.push({ mode, oid, file: record.slice(tab + 1) });
    }
    return entries;
}
/** A new file (never an existing one, never through a link), with its bytes. */
function writeNew(file, bytes, mode) {
    const fd = (0,external_node_fs_namespaceObject.openSync)(file, external_node_fs_namespaceObject.constants.O_WRONLY | external_node_fs_namespaceObject.constants.O_CREAT | external_node_fs_namespaceObject.constants.O_EXCL | external_node_fs_namespaceObject.constants.O_NOFOLLOW, mode);
    try {
        for (let at = 0; at < bytes.length;)
            at += (0,external_node_fs_namespaceObject.writeSync)(fd, bytes, at);
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/**
 * Writes every file of `commit` (read from the repository at `repo`) into `dest`, an empty folder nobody else
 * writes: regular files 0644 or 0755 as git records them, links as links (never followed: every path is
 * created anew), a gitlink as an empty folder. Throws on a path that leaves `dest`.
 */
async function writeCommitTree(repo, commit, dest, env) {
    const entries = (await entriesOf(repo, commit, env)).filter(e => e.mode !== '040000');
    const folders = new Set();
    const folder = (dir) => {
        if (dir === '.' || folders.has(dir))
            return;
        folder(external_node_path_default().posix.dirname(dir));
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().join(dest, dir), { mode: 0o755 });
        folders.add(dir);
    };
    const place = (file) => {
        const full = external_node_path_default().join(dest, file);
        if (external_node_path_default().relative(dest, full).startsWith('..') || external_node_path_default().isAbsolute(file))
            throw new Error(`the commit names a path outside its tree: ${file}`);
        folder(external_node_path_default().posix.dirname(file));
        return full;
    };
    const blobs = entries.filter(e => e.mode !== '160000');
    for (const e of entries.filter(e => e.mode === '160000'))
        folder(e.file);
    if (blobs.length === 0)
        return 0;
    const out = await gitBytes(repo, ['cat-file', '--batch'], {
        env,
        input: blobs.map(e => `${e.oid}\n`).join('')
    });
    let at = 0;
    for (const e of blobs) {
        const newline = out.indexOf(0x0a, at);
        const [, type, size] = out.subarray(at, newline).toString('utf8').split(' ');
        if (type !== 'blob')
            throw new Error(`${e.file} is not a blob in ${commit}`);
        const bytes = out.subarray(newline + 1, newline + 1 + Number(size));
        at = newline + 1 + Number(size) + 1;
        const full = place(e.file);
        if (e.mode === '120000')
            (0,external_node_fs_namespaceObject.symlinkSync)(bytes.toString('utf8'), full);
        else
            writeNew(full, bytes, e.mode === '100755' ? 0o755 : 0o644);
    }
    return blobs.length;
}

;// CONCATENATED MODULE: ./src/loop/defaults.ts
// LoopConfig defaults, so front-ends and the benchmark only say what differs.






const DEFAULT_OUTPUT_CAP = 1024 * 1024;
const DEFAULT_COMPLETION_TAG = 'COMPLETE';
const defaults_DEFAULT_KILL_GRACE_MS = 3000;
/** `20260102-030405`: a UTC timestamp safe in file and branch names. */
const stamp = (now) => new Date(now).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
/** `<system temp>/ralph-action/<name>-<UTC timestamp>-<pid>`: outside any work tree. */
function defaultRecordDir(name, now = Date.now()) {
    const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-') || 'loop';
    return external_node_path_default().join((0,external_node_os_namespaceObject.tmpdir)(), 'ralph-action', `${safe}-${stamp(now)}-${process.pid}`);
}
/** `ralph/<name>-<UTC timestamp>`, with characters git refuses in branch names replaced. */
function defaultBranch(name, now) {
    const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '') || 'loop';
    return `ralph/${safe}-${stamp(now)}`;
}
/**
 * A full LoopConfig from the settings that differ. Gates default to the ralph's `checks:` and the tag to
 * its `completion_tag:` (then 'COMPLETE'); the record goes under the system temp dir.
 */
function loopConfig(settings) {
    return {
        userArgs: {},
        stopOnError: false,
        delaySeconds: 0,
        checks: settings.ralph.checks,
        completionTag: settings.ralph.completionTag ?? DEFAULT_COMPLETION_TAG,
        commit: false,
        maxFileBytes: DEFAULT_MAX_FILE_BYTES,
        recordDir: defaultRecordDir(settings.ralph.name),
        outputCap: DEFAULT_OUTPUT_CAP,
        breaker: { ...DEFAULT_BREAKER },
        presets: settings.ralph.presets ?? true,
        parallelChecks: settings.ralph.checksParallel ?? false,
        ...(settings.ralph.protected ? { protect: settings.ralph.protected } : {}),
        ...(settings.ralph.setup ? { setup: settings.ralph.setup } : {}),
        ...(settings.ralph.verify ? { verify: settings.ralph.verify } : {}),
        ...settings
    };
}
/** Gate settings that cannot work together, as one line naming the fix; undefined when they can. */
function gateSettingsProblem(config) {
    if (!config.skipIfGreen)
        return undefined;
    if (config.checks.length === 0)
        return "skip-if-green needs gates (the ralph's checks:, --check or the checks input): without them nothing can be found green.";
    if (config.baseline === false)
        return 'skip-if-green needs the baseline (the gates run once before iteration 1), which is turned off: turn it back on, or drop skip-if-green.';
    return undefined;
}
/** Characters of a command kept in the name of the gate it is (the whole command is in the record). */
const GATE_NAME_CHARS = 40;
/**
 * Gates given beside a ralph (the CLI's `--check`, the action's `checks` input), named by their command
 * (`npm test`; a long one cut to 40 characters), " (2)" added where two would share a name or a log file.
 */
function addedChecks(commands, existing) {
    const taken = new Set(existing.flatMap(c => [c.name, safeFileName(c.name)]));
    const checks = [];
    for (const run of commands) {
        const flat = run.replace(/\s+/g, ' ').trim() || 'check';
        const base = flat.length > GATE_NAME_CHARS ? `${flat.slice(0, GATE_NAME_CHARS - 1)}…` : flat;
        let name = base;
        for (let n = 2; taken.has(name) || taken.has(safeFileName(name)); n++)
            name = `${base} (${n})`;
        taken.add(name).add(safeFileName(name));
        checks.push({ name, run, timeout: DEFAULT_CHECK_TIMEOUT });
    }
    return checks;
}

;// CONCATENATED MODULE: ./src/loop/verify.ts
// The verdict is the action's: once every gate passes in the loop's tree, they run once more on a clean
// checkout of exactly the commit to deliver — a fresh worktree (no ignored or untracked file of the loop's
// tree), protected paths put back from the base, `setup` first, as the user the gates run as. Work that passes
// only thanks to what git never delivers (an ignored file, a build left behind) fails here, before any push.










const iso = (ms) => new Date(ms).toISOString();
/** How a passing tree is verified: `clean` by default where there is a commit to check out, else nothing. */
function verifyMode(config, isRepo) {
    if (config.checks.length === 0 || !config.commit || !isRepo)
        return undefined;
    return config.verify ?? 'clean';
}
/** The setup commands as gates are run (bash, in order), each named by its command. */
function setupCommands(commands) {
    return addedChecks([...commands], []);
}
/**
 * Runs the setup commands one after another in `cwd` (logs in `<iterationDir>/setup/`), stopping at the first
 * that fails. Answers their runs, and whether the run had to stop meanwhile.
 */
async function runSetup(env, cwd, iterationDir) {
    const runs = [];
    env.onPhase('check');
    try {
        for (const command of setupCommands(env.config.setup ?? [])) {
            const outcome = await runChecks([command], {
                ...(env.agentEnvironment ? { freshHome: true } : {}),
                workTree: cwd,
                iterationDir,
                folder: 'setup',
                relative: file => env.record.relative(file),
                killGraceMs: env.killGraceMs,
                signal: env.guard.signal,
                stopCause: () => env.guard.trip?.cause,
                runProcess: env.runProcess
            });
            runs.push(...outcome.runs);
            if (outcome.interrupted)
                return { runs, interrupted: true };
            if (outcome.failures.length > 0)
                break;
        }
        return { runs, interrupted: false };
    }
    finally {
        env.onPhase(undefined);
    }
}
/** `tests (on a clean checkout)`: how a clean checkout's failure reaches the next prompt. */
function cleanFailures(verification) {
    const short = verification.commit.slice(0, 12);
    const where = `It passed in your work tree but failed on a clean checkout of commit ${short}: only what git tracks, ` +
        'no ignored or untracked file of your tree' +
        (verification.setup.length > 0 ? ', after the setup commands' : '') +
        '. Make the committed files pass on their own.';
    return [...verification.setup, ...verification.checks]
        .filter(run => !run.passed)
        .map(run => ({
        ...run,
        name: `${run.name} (on a clean checkout)`,
        tail: `${where}\n\n${run.tail}`
    }));
}
/** The project root's place inside a checkout of the repository at `repoRoot`. */
function projectIn(checkout, repoRoot, projectRoot) {
    const real = (p) => {
        try {
            return (0,external_node_fs_namespaceObject.realpathSync)(p);
        }
        catch {
            return external_node_path_default().resolve(p);
        }
    };
    const rel = external_node_path_default().relative(real(repoRoot), real(projectRoot));
    return rel.startsWith('..') || external_node_path_default().isAbsolute(rel) ? checkout : external_node_path_default().join(checkout, rel);
}
/**
 * The run's protected paths (none when it has no protection) put back in `checkout` from the base, as this
 * process; `keep` gets the checkout's protection, to look again once its gates have run.
 */
function fromBase(env, keep) {
    const protection = env.protection;
    if (!protection)
        return () => Promise.resolve([]);
    return async (checkout, base) => {
        const here = await protectionFromRules(await repositoryTop(checkout), base, protection.rules, protection.guardrails);
        keep(here);
        return (await restore(here, { signal: env.guard.signal })).map(revert => revert.path);
    };
}
/**
 * Where a clean checkout goes by default: under this user's ~/.cache, not the system's temp folder, whose
 * parents every user may write (pytest looks up the tree for its ini and conftest files: a /tmp/pytest.ini
 * planted by the agent would steer the clean run).
 */
async function privateBase() {
    const base = external_node_path_default().join((0,external_node_os_namespaceObject.homedir)(), '.cache', 'ralph-action');
    try {
        await (0,external_node_fs_promises_namespaceObject.mkdir)(base, { recursive: true, mode: 0o700 });
        return base;
    }
    catch {
        return (0,external_node_os_namespaceObject.tmpdir)();
    }
}
/**
 * The gates on a clean checkout of `commit`: its record, and the failing runs (setup's or the gates') with
 * the end of their output for the fingerprint. Throws when the checkout cannot be made (git failed).
 */
async function verifyCommit(env, iteration, commit, base, ports = {}, counting = {}) {
    const started = env.clock.now();
    const repoRoot = env.workspace.root;
    const git = { cwd: repoRoot, env: ports.gitEnv };
    const folder = await (0,external_node_fs_promises_namespaceObject.mkdtemp)(external_node_path_default().join(ports.tempDir ?? (await privateBase()), 'ralph-clean-'));
    const checkout = external_node_path_default().join(folder, 'checkout');
    let giveBack;
    try {
        // No checkout by git: its smudge filters and attributes are the tree's (and, under isolation none, a
        // .git/config the agent may have written); the files come straight from the object store instead.
        await gitOrThrow(['worktree', 'add', '--detach', '--no-checkout', '--quiet', checkout, commit], git);
        await writeCommitTree(repoRoot, commit, checkout, ports.gitEnv);
        await gitOrThrow(['read-tree', commit], { ...git, cwd: checkout });
        // Before it is lent: the checkout is the action's own yet (made by its git, nothing of the agent's runs
        // there), so its git may read it and no process can swap a path while it is put back.
        let guarded;
        const reverted = base !== undefined
            ? await (ports.restoreProtected ?? fromBase(env, p => (guarded = p)))(checkout, base)
            : [];
        giveBack = await ports.lend?.(checkout);
        const cwd = projectIn(checkout, repoRoot, env.workTree);
        const dir = external_node_path_default().join(env.record.iterationDir(iteration), 'clean');
        const setup = await runSetup(env, cwd, dir);
        const verification = {
            commit,
            iteration,
            startedAt: iso(started),
            durationMs: 0,
            verdict: 'passed',
            setup: setup.runs,
            checks: [],
            checksMs: 0,
            ...(reverted.length > 0 ? { protectedReverts: reverted } : {})
        };
        const failures = [];
        if (setup.interrupted)
            verification.verdict = 'interrupted';
        else if (setup.runs.some(run => !run.passed)) {
            verification.verdict = 'failed';
            for (const run of setup.runs.filter(r => !r.passed))
                failures.push({ name: run.name, output: run.tail });
        }
        else {
            env.onPhase('check');
            // Counted as the loop's gates are: a clean run with fewer tests than the baseline's fails too.
            const gates = await runChecks(env.config.checks, gateContext(env, counting, cwd, dir)).finally(() => env.onPhase(undefined));
            verification.checks = gates.runs;
            verification.checksMs = gates.wallMs;
            failures.push(...gates.failures);
            // As in the loop's tree: what judges stays as it was while the gates run the agent's code.
            const during = guarded && !gates.interrupted ? await findChanges(guarded) : [];
            if (during.length > 0) {
                const run = changedDuringGates(during);
                verification.checks = [...verification.checks, run];
                failures.push({ name: run.name, output: run.tail });
            }
            verification.verdict = gates.interrupted ? 'interrupted' : failures.length > 0 ? 'failed' : 'passed';
        }
        verification.durationMs = Math.round(env.clock.now() - started);
        return { verification, failures };
    }
    finally {
        // Given back before it is removed: what the gates made there is the action's again.
        const problems = (await giveBack?.().catch((error) => [error.message])) ?? [];
        for (const problem of problems)
            env.emit({ type: 'warning', message: `the clean checkout: ${problem}` });
        await (0,external_node_fs_promises_namespaceObject.rm)(folder, { recursive: true, force: true }).catch(() => undefined);
        await git_runGit(['worktree', 'prune'], git);
    }
}

;// CONCATENATED MODULE: ./src/text/markdown.ts
// The one set of Markdown helpers, below the engine (which writes progress.md with them): a code span and a
// fence no text can break out of, a table cell, and cutting to a length. Every renderer uses them: progress.md,
// the job summary, the PR body, the tracking comment, the hunt's issue, the replies and the prompt's blocks.
/** Cuts `text` to `max` characters, the last one an ellipsis. */
function cut(text, max) {
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
/** One line for a table or a sentence: no pipes, no newlines (nor the spaces around them), cut to `max`. */
function cell(text, max = 80) {
    return cut(text
        .replace(/[ \t]*\r?\n\s*/g, ' ')
        .replace(/\|/g, '\\|')
        .trim(), max);
}
const longestRun = (text, char) => Math.max(0, ...[...text.matchAll(char === '`' ? /`+/g : /~+/g)].map(m => m[0].length));
/**
 * An inline code span that no run of backticks inside `text` can close: its delimiter is longer than the
 * longest run, padded with a space where the text holds or touches a backtick.
 */
function code(text) {
    const ticks = '`'.repeat(longestRun(text, '`') + 1);
    return ticks.length > 1 || text.startsWith('`') || text.endsWith('`')
        ? `${ticks} ${text} ${ticks}`
        : `${ticks}${text}${ticks}`;
}
/** A name or a command inside a table or a sentence: one line, cut to `max`, as code. */
const codeCell = (text, max = 120) => code(cell(text, max));
/** A fenced block (of backticks, or tildes) longer than any run of the same mark inside `text`. */
function fence(text, lang = '', mark = '`') {
    const marks = mark.repeat(Math.max(3, longestRun(text, mark) + 1));
    return `${marks}${lang}\n${text.replace(/\n+$/, '')}\n${marks}`;
}
/** Keeps a body under `max` characters by cutting its middle (its first line, a marker, stays whole). */
function fit(body, max, what = 'GitHub’s comment limit') {
    if (body.length <= max)
        return body;
    const note = `\n\n_[… cut to fit ${what}]_\n\n`;
    const head = Math.floor((max - note.length) * 0.6);
    const tail = max - note.length - head;
    return body.slice(0, head) + note + body.slice(body.length - tail);
}

;// CONCATENATED MODULE: ./src/loop/test-count.ts
// A gate's test count, which may not shrink (#27): which runner a gate's command runs (npm/yarn/pnpm scripts
// read from the start commit's package.json, never the tree's), and that runner's own count, read from the
// summary it prints anyway. No flag or report file is added: the gate runs as the user wrote it, and a report
// file would be written by the same uid as the code under test, so it would be no harder to forge than the
// output. The LAST summary in the output counts: one the code under test prints while its tests run comes
// before the runner's own; a script the gate runs that the tree changed (a `posttest` that prints one) makes
// the count unbelieved. Residual risk: code under test that writes a forged summary after the runner's (a
// child left printing to the runner's stdout, or /proc/<runner>/fd/1), or `--- PASS:` lines that go test
// (1.19's -json too) cannot tell from its own, is believed. This catches `.skip`, `xfail`, `t.Skip`, deleted
// tests and a test run cut short, not a deliberate forgery of the runner's output.





/** The runners counted, as the record names them. */
const COUNTED_RUNNERS = 'node --test, jest, vitest, pytest, go test -v/-json';
/** Bytes read back from the end of a gate's log to find its summary. */
const SUMMARY_BYTES = 64 * 1024;
/** How deep scripts may call scripts (`npm test` → `npm run unit` → `jest`). */
const SCRIPT_DEPTH = 4;
/**
 * The test runner `command` (a gate's `run`) runs, through package.json `scripts` (the start commit's) for
 * `npm test`, `npm run X`, `yarn X`, `pnpm X`. A chain `a && b` counts when exactly one step is a runner.
 */
function recogniseRunner(command, scripts, depth = 0) {
    const steps = splitChain(command);
    if (!steps)
        return { why: 'it is not a plain command (or an `&&` chain of them)' };
    const found = steps.map(argv => recogniseArgv(argv, scripts, depth));
    const runners = found.filter(r => r.runner !== undefined);
    if (runners.length === 1) {
        if (steps.some(argv => argv[0] === 'cd'))
            return { why: 'it changes folder (`cd`) before the runner' };
        return runners[0];
    }
    if (runners.length > 1)
        return { why: 'it runs more than one test runner' };
    const reasons = found.filter(r => r.runner === undefined && r.why !== NOT_A_RUNNER);
    return reasons.length > 0 ? reasons[0] : { why: NOT_A_RUNNER };
}
const NOT_A_RUNNER = `it runs none of the runners counted (${COUNTED_RUNNERS})`;
function recogniseArgv(argv, scripts, depth) {
    let args = argv;
    while (args.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[0]))
        args = args.slice(1);
    if (args[0] === 'npx' || args[0] === 'exec')
        args = args.slice(1).filter((a, i) => i > 0 || !a.startsWith('-'));
    if (args.length === 0)
        return { why: NOT_A_RUNNER };
    const program = external_node_path_default().basename(args[0]);
    const rest = args.slice(1);
    if (program === 'node' || program === 'nodejs')
        return recogniseNode(rest);
    if (program === 'jest')
        return { runner: 'jest' };
    if (program === 'vitest')
        return rest[0] === 'watch' || rest[0] === 'bench' ? { why: NOT_A_RUNNER } : { runner: 'vitest' };
    if (['pytest', 'pytest-3', 'py.test'].includes(program))
        return recognisePytest(rest);
    if (/^python[0-9.]*$/.test(program)) {
        const m = rest.indexOf('-m');
        return m >= 0 && rest[m + 1] === 'pytest' ? recognisePytest(rest.slice(m + 2)) : { why: NOT_A_RUNNER };
    }
    if (program === 'go' && rest[0] === 'test') {
        // Without -v or -json go test prints no count, only `ok  pkg`.
        if (rest.some(a => /^--?(v|json)(=true)?$/.test(a)))
            return { runner: 'go test' };
        return {
            why: '`go test` prints no count without -v or -json: add -v to the gate to have its tests counted'
        };
    }
    if (['npm', 'yarn', 'pnpm'].includes(program)) {
        const name = scriptName(program, rest.filter(a => !a.startsWith('-') || a === '--'));
        if (name === undefined)
            return { why: NOT_A_RUNNER };
        const script = scripts?.[name];
        if (script === undefined)
            return { why: `package.json at the start has no script \`${name}\`` };
        if (depth >= SCRIPT_DEPTH)
            return { why: `its scripts call scripts more than ${SCRIPT_DEPTH} deep` };
        const found = recogniseRunner(script, scripts, depth + 1);
        if (found.runner === undefined)
            return found;
        return {
            ...found,
            scripts: {
                ...found.scripts,
                [name]: script,
                [`pre${name}`]: scripts?.[`pre${name}`],
                [`post${name}`]: scripts?.[`post${name}`]
            }
        };
    }
    return { why: NOT_A_RUNNER };
}
/** pytest, unless told to print no summary (`-qq`, `-p no:terminal`). */
function recognisePytest(args) {
    const quiet = args.reduce((n, a) => n + (/^-q+$/.test(a) ? a.length - 1 : a === '--quiet' ? 1 : 0), 0);
    const noTerminal = args.some((a, i) => a === '-pno:terminal' || (a === '-p' && args[i + 1] === 'no:terminal'));
    if (quiet >= 2 || noTerminal)
        return {
            why: 'pytest prints no count with `-qq` or `-p no:terminal`: use `-q` to have its tests counted'
        };
    return { runner: 'pytest' };
}
/** `node --test` prints its summary with its own reporters (tap, spec) to stdout, not with dot, junit or a file. */
function nodeTestReporters(args) {
    const values = (flag) => args.flatMap((a, i) => a === flag ? [args[i + 1] ?? ''] : a.startsWith(`${flag}=`) ? [a.slice(flag.length + 1)] : []);
    const reporters = values('--test-reporter');
    const destinations = values('--test-reporter-destination');
    const summary = reporters.length === 0 ||
        reporters.some((r, i) => ['spec', 'tap'].includes(r) && ['stdout', 'stderr', undefined].includes(destinations[i]));
    if (summary)
        return { runner: 'node --test' };
    return {
        why: '`node --test` prints no count with these reporters: add `--test-reporter=spec` to have its tests counted'
    };
}
/** `node --test …`, or node running jest's or vitest's own script (`node node_modules/jest/bin/jest.js`). */
function recogniseNode(args) {
    for (let i = 0; i < args.length; i++) {
        const arg = args[i];
        if (arg === '--test')
            return nodeTestReporters(args);
        if (['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions'].includes(arg)) {
            i++;
            continue;
        }
        if (arg.startsWith('-'))
            continue;
        const parts = arg.split('/');
        const file = parts.at(-1) ?? '';
        if (file === 'jest' || (file === 'jest.js' && parts.at(-3) === 'jest'))
            return { runner: 'jest' };
        if (file === 'vitest' || file === 'vitest.mjs')
            return { runner: 'vitest' };
        return { why: NOT_A_RUNNER };
    }
    return { why: NOT_A_RUNNER };
}
/** The script `npm test` / `npm run X` / `yarn X` / `pnpm run X` runs (args: its words past the program). */
function scriptName(program, words) {
    const [verb, name] = words;
    if (verb === undefined || verb === '--')
        return undefined;
    if (['test', 't', 'tst'].includes(verb))
        return 'test';
    if (verb === 'run' || verb === 'run-script')
        return name === '--' ? undefined : name;
    // yarn and pnpm run a script by its name alone.
    if (program !== 'npm' && !['install', 'add', 'exec', 'dlx', 'x', 'install-test', 'it'].includes(verb))
        return verb;
    return undefined;
}
/**
 * The command as argv lists, one per `&&` step, or undefined when it is more than that (pipes, `;`, `||`,
 * redirections, substitutions, subshells, several lines): what such a command counts is not knowable.
 */
function splitChain(command) {
    const steps = [[]];
    let word;
    const end = () => {
        if (word !== undefined)
            steps[steps.length - 1].push(word);
        word = undefined;
    };
    for (let i = 0; i < command.length; i++) {
        const c = command[i];
        if (c === "'") {
            const close = command.indexOf("'", i + 1);
            if (close < 0)
                return undefined;
            word = (word ?? '') + command.slice(i + 1, close);
            i = close;
        }
        else if (c === '"') {
            const close = command.indexOf('"', i + 1);
            const inner = close < 0 ? undefined : command.slice(i + 1, close);
            if (inner === undefined || /[$`\\]/.test(inner))
                return undefined;
            word = (word ?? '') + inner;
            i = close;
        }
        else if (c === ' ' || c === '\t')
            end();
        else if (c === '&' && command[i + 1] === '&') {
            end();
            if (steps[steps.length - 1].length === 0)
                return undefined;
            steps.push([]);
            i++;
        }
        else if (/[|;<>()`$\\\n\r&*?[\]{}~#]/.test(c)) {
            // A glob or `~` in an argument is fine; anywhere else these change what runs.
            if (/[*?[\]{}~]/.test(c))
                word = (word ?? '') + c;
            else
                return undefined;
        }
        else
            word = (word ?? '') + c;
    }
    end();
    return steps.every(step => step.length > 0) ? steps : undefined;
}
// ANSI colour and cursor codes (vitest colours its output even off a terminal).
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
/** The runner's count from the end of its output (the last summary in it), or undefined when it has none. */
function parseTestCount(runner, output) {
    const lines = output.replace(ANSI, '').split(/\r?\n/);
    switch (runner) {
        case 'node --test':
            return nodeCount(lines);
        case 'jest':
            return jestCount(lines);
        case 'vitest':
            return vitestCount(lines);
        case 'pytest':
            return pytestCount(lines);
    }
}
const lastLine = (lines, test) => {
    for (let i = lines.length - 1; i >= 0; i--)
        if (test(lines[i]))
            return lines[i];
    return undefined;
};
const count = (passed, failed, skipped) => ({
    run: passed + failed,
    passed,
    failed,
    skipped
});
/** Parts such as `2 passed`, `1 failed` of a summary line, by name. */
function parts(text) {
    const found = new Map();
    for (const m of text.matchAll(/(\d+) ([a-z]+)/g))
        found.set(m[2], (found.get(m[2]) ?? 0) + Number(m[1]));
    return found;
}
/** A top-level test that passed, named by a script's path: `ok 1 - /w/calc.test.js`, `✔ calc.test.js (9ms)`. */
const NODE_FILE_PASSED = /^(?:ok \d+ - |✔ )(?:\/.*|\S+)\.[cm]?[jt]sx?(?: \([\d.]+m?s\))?$/;
/** `# tests 5` / `ℹ tests 5` then pass, fail, cancelled, skipped, todo (tap or spec, Node 20 to 24). */
function nodeCount(lines) {
    for (let i = lines.length - 1; i >= 0; i--) {
        if (!/^(# |ℹ )tests \d+$/.test(lines[i]))
            continue;
        const found = new Map();
        for (const line of lines.slice(i + 1, i + 9)) {
            const m = /^(?:# |ℹ )([a-z_]+) (\d+)/.exec(line);
            if (m)
                found.set(m[1], Number(m[2]));
        }
        const get = (name) => found.get(name);
        const [pass, fail] = [get('pass'), get('fail')];
        if (pass === undefined || fail === undefined)
            return undefined;
        // A file that ended with no test reported (process.exit from the code under test) passes as one test
        // named by its path: it ran none, or a one-test file cut short would keep its count.
        const filesPassed = lines.slice(0, i).filter(line => NODE_FILE_PASSED.test(line)).length;
        return count(Math.max(0, pass - filesPassed), fail + (get('cancelled') ?? 0), (get('skipped') ?? 0) + (get('todo') ?? 0));
    }
    return undefined;
}
/** `Tests:       1 failed, 1 skipped, 1 todo, 2 passed, 5 total`. */
function jestCount(lines) {
    const line = lastLine(lines, l => /^Tests:\s+(\d+ [a-z]+, )*\d+ total\s*$/.test(l));
    if (!line)
        return undefined;
    const p = parts(line);
    return count(p.get('passed') ?? 0, p.get('failed') ?? 0, (p.get('skipped') ?? 0) + (p.get('todo') ?? 0));
}
/** `      Tests  1 failed | 2 passed | 1 skipped | 1 todo (5)`. */
function vitestCount(lines) {
    const line = lastLine(lines, l => /^\s*Tests\s+\d+ [a-z]+( \| \d+ [a-z]+)* \(\d+\)\s*$/.test(l));
    if (!line)
        return undefined;
    const p = parts(line);
    return count(p.get('passed') ?? 0, p.get('failed') ?? 0, (p.get('skipped') ?? 0) + (p.get('todo') ?? 0));
}
/** `===== 1 failed, 2 passed, 1 skipped, 1 xfailed, 1 xpassed in 0.02s =====` (or without the rules, -q). */
function pytestCount(lines) {
    const summary = /^=*\s*((?:\d+ [a-z]+(?:, )?)+|no tests ran) in [\d.]+s( \([\d:]+\))?\s*=*\s*$/;
    const line = lastLine(lines, l => summary.test(l));
    if (!line)
        return undefined;
    const p = parts(line);
    const n = (name) => p.get(name) ?? 0;
    return count(n('passed') + n('xpassed'), n('failed') + n('error') + n('errors'), n('skipped') + n('xfailed'));
}
/**
 * `go test -json`'s pass/fail/skip events of tests (not packages), or `go test -v`'s `--- PASS:` lines,
 * subtests included, over the whole log: go prints no total.
 */
function goTestCount(lines) {
    const n = { PASS: 0, FAIL: 0, SKIP: 0 };
    let seen = false;
    for (const raw of lines) {
        const line = raw.replace(ANSI, '');
        if (line.startsWith('{')) {
            let event;
            try {
                event = JSON.parse(line);
            }
            catch {
                continue;
            }
            if (typeof event.Test !== 'string')
                continue;
            const action = String(event.Action).toUpperCase();
            if (action === 'PASS' || action === 'FAIL' || action === 'SKIP') {
                n[action]++;
                seen = true;
            }
            continue;
        }
        const m = /^\s*--- (PASS|FAIL|SKIP): /.exec(line);
        if (m) {
            n[m[1]]++;
            seen = true;
        }
        else if (/^(ok|FAIL|\?)\s+\S+/.test(line))
            seen = true;
    }
    return seen ? count(n.PASS, n.FAIL, n.SKIP) : undefined;
}
/** The lines of a file, read in pieces (a go test log has a line per test: it may be large). */
function* fileLines(file) {
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(file, 'r');
    }
    catch {
        return;
    }
    try {
        const buf = Buffer.alloc(1024 * 1024);
        let carry = '';
        for (let read = (0,external_node_fs_namespaceObject.readSync)(fd, buf); read > 0; read = (0,external_node_fs_namespaceObject.readSync)(fd, buf)) {
            const text = carry + buf.subarray(0, read).toString('latin1');
            const lines = text.split('\n');
            carry = lines.pop() ?? '';
            yield* lines;
        }
        if (carry)
            yield carry;
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** The count a gate's run reported, from its log (or from its captured output when the log failed). */
function countFromLog(runner, log, captured) {
    if (runner === 'go test')
        return goTestCount(captured !== undefined ? captured.split('\n') : fileLines(log));
    return parseTestCount(runner, captured ?? readFileTail(log, SUMMARY_BYTES));
}
const tests = (n) => `${n} test${n === 1 ? '' : 's'}`;
/**
 * Why a gate whose runner is counted fails on its count, or undefined when it may pass: it reported no count,
 * a failing test (whatever its exit code), ran fewer tests than at the baseline, or skipped more.
 */
function countProblem(command, runner, now, start, passed = true) {
    const gate = codeCell(command);
    if (!now)
        return `${gate} reported no test count: ${runner}'s summary is not in its output`;
    // A failing test fails the gate whatever the exit code says (the code under test can end its runner
    // with 0 after the summary: pytest runs it in its own process, and atexit can os._exit(0)).
    const failing = passed && now.failed > 0 ? [`${gate} reported ${tests(now.failed)} failing`] : [];
    if (!start)
        return failing.length > 0 ? failing[0] : undefined;
    const problems = [...failing];
    if (now.run < start.run)
        problems.push(`${gate} ran ${tests(start.run)} at the start and ${now.run} now`);
    if (now.skipped > start.skipped)
        problems.push(`${gate} skipped ${tests(start.skipped)} at the start and ${now.skipped} now`);
    return problems.length > 0 ? problems.join('; ') : undefined;
}
/**
 * The gates' runners, recognised once before iteration 1 with package.json's scripts as the start commit
 * holds them (`packageJson`: its text, undefined when it has none).
 */
function recogniseGates(commands, packageJson) {
    let scripts;
    let why;
    if (packageJson !== undefined) {
        try {
            const parsed = JSON.parse(packageJson);
            if (parsed.scripts && typeof parsed.scripts === 'object')
                scripts = Object.fromEntries(Object.entries(parsed.scripts).filter((e) => typeof e[1] === 'string'));
        }
        catch {
            why = 'package.json at the start is not valid JSON';
        }
    }
    return commands.map(command => {
        const found = recogniseRunner(command, scripts);
        return found.runner === undefined && why && /package\.json/.test(found.why) ? { why } : found;
    });
}
/**
 * The count hook of one round of gates: gate i's count from its log, failed when its runner is counted and
 * the count is missing, or smaller than `start[i]` (the baseline's run of the same gate).
 */
function testCounter(commands, runners, start, workTree) {
    return (index, log, captured, passed) => {
        const found = runners[index];
        if (found?.runner === undefined)
            return {};
        const tests = countFromLog(found.runner, log, captured);
        const before = start?.[index]?.run === commands[index] ? start[index].tests : undefined;
        const changed = found.scripts ? changedScript(found.scripts, workTree) : undefined;
        // A gate that failed anyway needs no "no count" or "failing" line: its own output says why.
        const problem = changed
            ? `${codeCell(commands[index])} ran package.json's script \`${changed}\` as the tree has it, not as the start had it: its count is not believed`
            : !tests && !passed
                ? undefined
                : countProblem(commands[index], found.runner, tests, before, passed);
        return { ...(tests ? { tests } : {}), ...(problem ? { problem } : {}) };
    };
}
/**
 * The first script npm runs for the gate whose text in the tree's package.json differs from the start's (the
 * agent could make `test` or `posttest` print a summary of its own), or undefined.
 */
function changedScript(start, workTree) {
    let tree = {};
    try {
        const parsed = JSON.parse(readTreeFile(external_node_path_default().join(workTree, 'package.json')).toString('utf8'));
        if (parsed.scripts && typeof parsed.scripts === 'object')
            tree = parsed.scripts;
    }
    catch {
        // Gone or broken: every script the gate needs has changed.
    }
    return Object.keys(start).find(name => tree[name] !== start[name]);
}
/** package.json as the start commit holds it (the tree's only where there is no commit, before any agent ran). */
async function startPackageJson(workspace, workTree, commit) {
    if (commit !== undefined) {
        const file = external_node_path_default().relative(workspace.root, external_node_path_default().join(workTree, 'package.json')).split((external_node_path_default()).sep).join('/');
        return workspace.fileAt?.(commit, file);
    }
    try {
        return readTreeFile(external_node_path_default().join(workTree, 'package.json')).toString('utf8');
    }
    catch {
        return undefined;
    }
}

;// CONCATENATED MODULE: ./src/loop/prompt.ts
// The prompt for one iteration. Without gates it is exactly the reference's (RALPH.md re-read, body
// stripped, comments removed, placeholders filled in one pass, credit trailer). Our `ralph.*` values are
// filled in the same single pass; when gates exist and the body uses none of them, a "Loop status"
// section is appended after the body and before the credit trailer.



/** Our additions to the `ralph.` kind; the reference renders them as ''. */
const LOOP_PLACEHOLDERS = [
    'checks',
    'failures',
    'diff',
    'progress',
    'completion_tag',
    'guardrails'
];
/** Progress entries shown to the agent. */
const PROGRESS_ENTRIES = 5;
/** A ralph-less body (a task, a spec file) as a template: no frontmatter, otherwise RALPH.md's rules. */
const bodyTemplate = (body) => pyStrip(stripHtmlComments(pyStrip(body)));
/** Which of our `ralph.*` placeholders the template uses (comments removed first, as rendering does). */
function loopPlaceholdersUsed(inputs) {
    const template = inputs.body !== undefined ? bodyTemplate(inputs.body) : promptTemplate(inputs.ralphText);
    const used = new Set();
    for (const match of template.matchAll(render_PLACEHOLDER_RE)) {
        if (match[1] === 'ralph' && LOOP_PLACEHOLDERS.includes(match[2]))
            used.add(match[2]);
    }
    return used;
}
const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;
/** `{{ ralph.checks }}`: one line per gate. */
function renderChecks(gates) {
    return gates.map(gate => `- ${code(gate.name)}: ${code(gate.run)}`).join('\n');
}
/** `{{ ralph.failures }}`: the previous iteration's failing checks, each with the end of its output. */
function renderFailures(checks) {
    const failing = (checks ?? []).filter(check => !check.passed);
    return failing
        .map(check => {
        const how = check.timedOut
            ? 'timed out'
            : check.exitCode === null
                ? 'was stopped'
                : `exit code ${check.exitCode}`;
        return `${code(check.name)} failed (${how}). The end of its output:\n\n${fence(check.tail, '', '~')}`;
    })
        .join('\n\n');
}
/** `{{ ralph.diff }}`: the stat, then the start of the patch. */
function renderDiff(diff) {
    if (!diff || (diff.stat.trim() === '' && diff.patch === ''))
        return '';
    const cut = diff.patchTruncated ? '\n[the rest of the diff is not shown]' : '';
    return `${diff.stat.replace(/\n+$/, '')}\n\n${fence(diff.patch, '', '~')}${cut}`;
}
/** One line about an iteration, for `{{ ralph.progress }}`. */
function progressEntry(record) {
    const parts = [record.verdict.replace(/_/g, ' ')];
    if (record.checks.length > 0)
        parts.push(checksTally(record.checks));
    if (record.agent) {
        const agent = record.agent;
        parts.push(agent.killedBy
            ? `agent stopped (${agent.killedBy})`
            : agent.timedOut
                ? 'agent timed out'
                : `agent ${ended(agent)}`);
    }
    if (record.progressed === false)
        parts.push('no change to the work tree');
    else if (record.progressed === true)
        parts.push('work tree changed');
    if (record.completion.given)
        parts.push('completion signal given');
    if (record.error)
        parts.push(`crashed: ${record.error}`);
    return `- Iteration ${record.iteration} (${seconds(record.durationMs)}): ${parts.join('; ')}`;
}
/** `checks 1/3 passing (failing: lint, test)`. */
function checksTally(checks) {
    const failing = checks.filter(check => !check.passed).map(check => check.name);
    const passing = checks.length - failing.length;
    return `checks ${passing}/${checks.length} passing${failing.length ? ` (failing: ${failing.join(', ')})` : ''}`;
}
/** The baseline as a progress line: the gates before the first agent run. */
function baselineEntry(baseline) {
    const what = baseline.verdict === 'interrupted' ? 'stopped' : checksTally(baseline.checks);
    return `- Before iteration 1 (the gates alone, ${seconds(baseline.durationMs)}): ${what}`;
}
/** `{{ ralph.progress }}`: the last few iterations (the baseline first), one line each. */
function renderProgress(history, baseline) {
    const entries = [...(baseline ? [baselineEntry(baseline)] : []), ...history.map(progressEntry)];
    return entries.slice(-PROGRESS_ENTRIES).join('\n');
}
/** The values of our `ralph.*` placeholders for this iteration. */
function loopValues(ctx) {
    return {
        checks: renderChecks(ctx.gates),
        failures: renderFailures(ctx.previousChecks),
        diff: renderDiff(ctx.diff),
        progress: renderProgress(ctx.history, ctx.baseline),
        completion_tag: ctx.completionTag ? `<promise>${ctx.completionTag}</promise>` : '',
        guardrails: ctx.guardrails?.content ?? ''
    };
}
/** The standard section for a gated ralph whose body uses none of our placeholders. */
function loopStatusSection(values, ctx, iteration, maxIterations) {
    const tag = values.completion_tag;
    const goal = tag
        ? 'every check passes and your final message gives the completion signal'
        : 'every check passes';
    const of = maxIterations !== undefined ? ` of at most ${maxIterations}` : '';
    const firstIteration = ctx.history.length === 0;
    const afterBaseline = firstIteration && ctx.previousChecks !== undefined;
    const failures = values.failures ||
        (afterBaseline
            ? 'None: every check passes now (they ran before this iteration). Do what the task asks all the same.'
            : firstIteration
                ? 'None yet: this is the first iteration.'
                : 'None: every check passed.');
    const sections = [
        '## Loop status',
        `You are working in a loop. When you exit, the checks below run on the work tree you leave; exit code 0 ` +
            `means pass. The loop ends when ${goal}. This is iteration ${iteration}${of}.`,
        '### Checks',
        values.checks,
        afterBaseline
            ? '### Failing checks now (run before this iteration)'
            : '### Failing checks from the previous iteration',
        failures,
        '### Changes since the loop started',
        values.diff || 'None yet.',
        '### Recent progress',
        values.progress || 'None yet: this is the first iteration.'
    ];
    if (ctx.guardrails) {
        sections.push('### Guardrails', values.guardrails.trim() || '(none written yet)', `When you meet a failure mode these do not cover, append a new lesson (a "Sign") to ` +
            `${code(ctx.guardrails.file)}: the trigger, the instruction, and what taught it.`);
    }
    if (tag) {
        sections.push('### When you are done', 'When every check passes on your work, end your final message with this line, on a line of its own:', tag, 'Only the end of your final message is read, and the checks run again before the loop accepts it. ' +
            'Do not give it while a check still fails.');
    }
    return `\n\n---\n\n${sections.join('\n\n')}`;
}
/**
 * The prompt for one iteration. `loop` is undefined for reference behaviour (no gates, no tag-aware
 * placeholders needed); then the result is byte for byte the reference's.
 */
function buildPrompt(inputs, loop) {
    const ralph = { name: inputs.name, iteration: String(inputs.iteration) };
    if (inputs.maxIterations !== undefined)
        ralph.max_iterations = String(inputs.maxIterations);
    Object.assign(ralph, loop?.values);
    const values = { commands: inputs.commandOutputs, args: inputs.userArgs, ralph };
    const section = (inputs.appendix ?? '') + (loop?.section ?? '');
    if (inputs.body !== undefined) {
        const prompt = renderPlaceholders(bodyTemplate(inputs.body), values) + section;
        return inputs.credit ? prompt + CREDIT_TRAILER : prompt;
    }
    if (section === '')
        return assemblePrompt(inputs.ralphText, values, inputs.credit, inputs.ralphFile);
    return (assemblePrompt(inputs.ralphText, values, false, inputs.ralphFile) +
        section +
        (inputs.credit ? CREDIT_TRAILER : ''));
}

;// CONCATENATED MODULE: ./src/loop/iteration.ts
// One iteration: commands → prompt (RALPH.md re-read) → agent → work tree (hash, commit) → checks →
// completion. Every step writes its logs as it goes; the iteration's record is what it returns.











const iteration_iso = (ms) => new Date(ms).toISOString();
function pinRalphFiles(ralph, workTree) {
    const pin = (what, file) => {
        try {
            return pinTreeFile(file, workTree);
        }
        catch (error) {
            if (!(error instanceof TreeFileError))
                throw error;
            throw new RalphError(`${what} ${error.message}. Make it a regular file of the project.`);
        }
    };
    return {
        ralph: pin('RALPH.md:', ralph.file),
        ...(ralph.guardrails
            ? { guardrails: pin('The guardrails file:', external_node_path_default().resolve(workTree, ralph.guardrails)) }
            : {})
    };
}
function readGuardrails(env, files) {
    const file = env.ralph.guardrails;
    if (!file || !files.guardrails)
        return undefined;
    let content = '';
    try {
        content = readTreeFile(files.guardrails).toString('utf8');
    }
    catch (error) {
        // Not written yet: the agent is asked to start it. Anything else (a link, a FIFO) is refused.
        if (!(error instanceof TreeFileError) || error.code !== 'ENOENT')
            throw new RalphError(`The guardrails file ${file} was not read: ${error.message}. Make it a regular file of the project.`);
    }
    return { file, content };
}
/** RALPH.md as the reference reads it every iteration: strict UTF-8 (a bad byte crashes the iteration). */
function readRalphText(file, pinned) {
    try {
        return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(readTreeFile(pinned));
    }
    catch (error) {
        throw new RalphError(`RALPH.md could not be read (${file}): ${error.message}`);
    }
}
/**
 * The prompt for this iteration, and whether it shows the agent the diff (then the tree must be tracked).
 * Throws RalphError when RALPH.md can no longer be read or parsed.
 */
function assemble(env, iteration, commandOutputs) {
    const { config, ralph } = env;
    // Without pins (a preview, before any agent ran) the files are pinned now.
    const files = env.ralphFiles ?? pinRalphFiles(ralph, env.workTree);
    const ralphText = config.promptText !== undefined ? '' : readRalphText(ralph.file, files.ralph);
    const inputs = {
        ralphText,
        ralphFile: ralph.file,
        body: config.promptText,
        name: ralph.name,
        iteration,
        maxIterations: config.maxIterations,
        commandOutputs,
        userArgs: config.userArgs,
        credit: ralph.credit,
        ...(config.promptAppendix ? { appendix: config.promptAppendix } : {})
    };
    // What the action put back after the last agent run: the agent is told, once, in its next prompt.
    const reverts = env.history.at(-1)?.reverts;
    if (reverts && reverts.length > 0)
        inputs.appendix = `${inputs.appendix ?? ''}${revertNote(revertsLine(reverts))}`;
    const used = loopPlaceholdersUsed(inputs);
    const gated = config.checks.length > 0;
    const ctx = {
        gates: config.checks,
        completionTag: config.completionTag,
        previousChecks: env.previousChecks,
        ...(env.baseline ? { baseline: env.baseline } : {}),
        diff: env.lastDiff,
        history: env.history,
        guardrails: readGuardrails(env, files)
    };
    const values = loopValues(ctx);
    const section = gated && used.size === 0 ? loopStatusSection(values, ctx, iteration, config.maxIterations) : '';
    return { prompt: buildPrompt(inputs, { values, section }), showsDiff: used.has('diff') };
}
/** The prompt's note on protected paths put back after the last agent run. */
function revertNote(paths) {
    return (`\n\nThe action put back protected paths after your last run, before the checks judged it: ${paths}. ` +
        `The tests that existed, the check scripts, the test runners' configuration, the ralph's folder and .github/ ` +
        `judge the work and are never delivered changed. Fix the code under test instead; you may add new tests.`);
}
function verdictOf(record, gated, tagRequired) {
    const agent = record.agent;
    const agentVerdict = agent?.timedOut
        ? 'agent_timed_out'
        : agent && !agent.success
            ? 'agent_failed'
            : undefined;
    if (gated) {
        const allPass = record.checks.every(check => check.passed);
        if (allPass && (!tagRequired || record.completion.given))
            return { verdict: 'passed', success: true };
        return { verdict: agentVerdict ?? (allPass ? 'checks_passed_no_tag' : 'checks_failed'), success: false };
    }
    if (tagRequired && record.completion.given)
        return { verdict: 'completed', success: true };
    return { verdict: agentVerdict ?? 'ran', success: false };
}
async function commitIteration(env, iteration, tree) {
    try {
        const sha = await env.workspace.commitAll(`ralph ${env.ralph.name}: iteration ${iteration}`, tree);
        return sha ? { sha } : {};
    }
    catch (error) {
        return { error: error.message };
    }
}
/** What the agent may spend of the loop's dollar budget in this run, and its turn cap. */
function agentCaps(config, meter) {
    const caps = {};
    if (config.maxCostUsd !== undefined)
        caps.remainingUsd = Math.max(0, config.maxCostUsd - meter.spentUsd());
    if (config.agentMaxTurns !== undefined)
        caps.maxTurns = config.agentMaxTurns;
    return caps;
}
/**
 * The gates in the work tree as it is, with the run's signal: a budget or a cancel kills them. A gate whose
 * runner is counted also fails on a count missing or smaller than the baseline's.
 */
function runGates(env, memory, iteration, dir) {
    env.onPhase('check');
    return runChecks(env.config.checks, {
        ...gateContext(env, memory, env.workTree, dir),
        onCheck: check => env.emit({ type: 'check_finished', iteration, check })
    }).finally(() => env.onPhase(undefined));
}
/**
 * How the gates run in `workTree` (the loop's, or a clean checkout): counted against the baseline where their
 * runner is known, each in a HOME of its own under isolation, logs under `dir`.
 */
function gateContext(env, counting, workTree, dir) {
    const runners = counting.testRunners;
    const commands = env.config.checks.map(check => check.run);
    return {
        ...(env.agentEnvironment ? { freshHome: true } : {}),
        ...(runners ? { countTests: testCounter(commands, runners, counting.baseline?.checks, workTree) } : {}),
        workTree,
        iterationDir: dir,
        relative: file => env.record.relative(file),
        killGraceMs: env.killGraceMs,
        signal: env.guard.signal,
        stopCause: () => env.guard.trip?.cause,
        runProcess: env.runProcess,
        parallel: env.config.parallelChecks === true
    };
}
/**
 * The gates once before iteration 1, recorded like an iteration 0: their failures fill iteration 1's
 * `{{ ralph.failures }}` exactly as a failed iteration's would, so the first agent run is not blind.
 */
async function runBaseline(env, memory) {
    const started = env.clock.now();
    const parallel = env.config.parallelChecks === true;
    env.emit({ type: 'baseline_started', checks: env.config.checks.length, parallel });
    const checks = await runGates(env, memory, 0, env.record.iterationDir(0));
    const baseline = {
        startedAt: iteration_iso(started),
        durationMs: Math.round(env.clock.now() - started),
        verdict: checks.interrupted ? 'interrupted' : checks.failures.length > 0 ? 'failing' : 'green',
        checks: checks.runs,
        checksMs: checks.wallMs,
        parallel
    };
    return {
        baseline,
        memory: { ...memory, baseline, ...(checks.interrupted ? {} : { previousChecks: checks.runs }) }
    };
}
async function runIteration(env, memory, iteration) {
    const { config, guard, record: runRecord, emit, clock } = env;
    let next = memory;
    const started = clock.now();
    const dir = runRecord.iterationDir(iteration);
    const relative = (file) => runRecord.relative(file);
    const record = {
        iteration,
        startedAt: iteration_iso(started),
        durationMs: 0,
        verdict: 'ran',
        commands: [],
        checks: [],
        completion: { tag: false, given: false },
        failureFingerprint: ''
    };
    const finish = (outcome, verdict) => {
        if (verdict)
            record.verdict = verdict;
        if (outcome.crash)
            record.error = outcome.crash;
        record.durationMs = Math.round(clock.now() - started);
        env.onPhase(undefined);
        return { record, memory: next, ...outcome };
    };
    // 1. The ralph's commands.
    env.onPhase('command');
    const commands = await runCommands(env.ralph.commands, {
        ralphDir: env.ralph.dir,
        workTree: env.workTree,
        userArgs: config.userArgs,
        iterationDir: dir,
        relative,
        outputCap: config.outputCap,
        killGraceMs: env.killGraceMs,
        signal: guard.signal,
        runProcess: env.runProcess,
        onCommand: command => emit({ type: 'command_finished', iteration, command })
    });
    record.commands = commands.runs;
    if (commands.crash)
        return finish({ crash: commands.crash, interrupted: false, success: false }, 'crashed');
    if (commands.interrupted)
        return finish({ interrupted: true, success: false }, 'interrupted');
    env.onPhase(undefined);
    // 2. The prompt, from RALPH.md as it is now.
    let prompt;
    try {
        const assembled = assemble({ ...env, ...next }, iteration, commands.outputs);
        prompt = assembled.prompt;
        if (assembled.showsDiff)
            next = { ...next, trackTree: true };
    }
    catch (error) {
        const message = error instanceof RalphError ? error.message : `RALPH.md could not be read: ${error.message}`;
        return finish({ crash: message, interrupted: false, success: false }, 'crashed');
    }
    record.prompt = runRecord.writePrompt(iteration, prompt);
    if (guard.signal.aborted)
        return finish({ interrupted: true, success: false }, 'interrupted');
    // 3. The agent, with the caps it can enforce itself: what is left of the dollar budget, its turn cap.
    const caps = agentCaps(config, env.meter);
    emit({
        type: 'agent_started',
        iteration,
        argv: env.preset.argv(env.ralph.agentArgv, caps),
        promptFile: record.prompt.file,
        preset: env.preset.name,
        transcript: env.preset.jsonStream,
        log: relative(agentLogFile(dir))
    });
    env.onPhase('agent');
    guard.watchCost(true);
    const agent = await runAgent({
        preset: env.preset,
        agent: env.ralph.agent,
        agentArgv: env.ralph.agentArgv,
        fromRalphFile: env.ralph.file !== '' && env.config.promptText === undefined,
        prompt,
        workTree: env.workTree,
        iterationDir: dir,
        relative,
        timeoutMs: config.agentTimeoutSeconds !== undefined ? config.agentTimeoutSeconds * 1000 : undefined,
        killGraceMs: env.killGraceMs,
        signal: guard.signal,
        stopCause: () => guard.trip?.cause,
        meter: env.meter,
        caps,
        ...(config.agentEnv ? { agentEnv: config.agentEnv } : {}),
        runProcess: env.runProcess,
        ...(env.agentEnvironment ? { agentEnvironment: env.agentEnvironment } : {}),
        ...(env.outputRoom ? { outputRoom: env.outputRoom } : {}),
        onOutput: output => emit('transcript' in output
            ? { type: 'agent_transcript', iteration, line: output.transcript }
            : { type: 'agent_output', iteration, stream: output.stream, chunk: output.chunk })
    });
    guard.watchCost(false);
    env.onPhase(undefined);
    if (agent.crash)
        return finish({ crash: agent.crash, interrupted: false, success: false }, 'crashed');
    record.agent = agent.run;
    emit({ type: 'agent_finished', iteration, agent: agent.run });
    if (guard.signal.aborted)
        return finish({ interrupted: true, success: false }, 'interrupted');
    // Protected paths back as the start commit has them: the gates judge with the base's tests, and the
    // commit (what is delivered) never carries a change to one.
    if (env.protection) {
        env.onPhase('command');
        try {
            const reverts = await restore(env.protection, { runProcess: env.runProcess, signal: guard.signal });
            if (reverts.length > 0) {
                record.reverts = reverts;
                emit({
                    type: 'warning',
                    message: `iteration ${iteration}: protected paths put back from the start commit before the checks: ${revertsLine(reverts)}`
                });
            }
        }
        catch (error) {
            if (guard.signal.aborted)
                return finish({ interrupted: true, success: false }, 'interrupted');
            const message = error instanceof ProtectedPathError ? error.message : `protected paths: ${error.message}`;
            return finish({ crash: message, interrupted: false, success: false }, 'crashed');
        }
        env.onPhase(undefined);
    }
    // 4. What the agent left: progress, the diff for the next prompt, the commit.
    if (env.isRepo && (next.trackTree || config.commit)) {
        const tree = await env.workspace.treeHash();
        record.treeHash = tree;
        record.progressed = tree !== next.previousTree;
        next = { ...next, previousTree: tree };
        if (next.startTree) {
            // The same tree as last time has the same diff: one git process fewer on an idle iteration.
            const lastDiff = record.progressed || next.lastDiff === undefined
                ? await env.workspace.diffSinceStart(next.startTree, tree)
                : next.lastDiff;
            next = { ...next, lastDiff };
            record.diffStat = lastDiff.stat;
        }
    }
    const commit = config.commit ? await commitIteration(env, iteration, record.treeHash) : undefined;
    if (commit)
        record.commit = commit;
    // A commit that failed is not "nothing changed": the work would be lost, or delivered without it.
    if (record.commit?.error)
        return finish({
            crash: `the commit of iteration ${iteration} failed: ${record.commit.error}`,
            interrupted: false,
            success: false
        }, 'crashed');
    // 5. The gates.
    let checks = await runGates(env, next, iteration, dir);
    // What judges the agent stays as it was while it judges: a gate runs the agent's code, which could rewrite
    // a later gate's script or a test not yet loaded. Changed meanwhile, the round does not count.
    if (env.protection && !checks.interrupted) {
        let during;
        try {
            during = await findChanges(env.protection);
        }
        catch (error) {
            return finish({ crash: error.message, interrupted: false, success: false }, 'crashed');
        }
        if (during.length > 0) {
            const run = changedDuringGates(during);
            checks = {
                ...checks,
                runs: [...checks.runs, run],
                failures: [...checks.failures, { name: run.name, output: run.tail }]
            };
        }
    }
    record.checks = checks.runs;
    record.checksMs = checks.wallMs;
    record.failureFingerprint = failureFingerprint(checks.failures);
    record.completion = detectCompletion(agent.outcome.finalMessage, config.completionTag);
    if (checks.interrupted)
        return finish({ interrupted: true, success: false }, 'interrupted');
    next = { ...next, previousChecks: checks.runs };
    // 6. The verdict: a passing tree passes once more on a clean checkout of its commit (verify.ts).
    const { verdict, success } = verdictOf(record, config.checks.length > 0, config.completionTag !== '');
    if (!success || env.verify !== 'clean')
        return finish({ interrupted: false, success }, verdict);
    const head = await env.workspace.headSha();
    if (head === undefined)
        return finish({ crash: 'there is no commit to verify', interrupted: false, success: false }, 'crashed');
    let verified;
    try {
        verified = await verifyCommit(env, iteration, head, next.startCommit, env.verifyPorts, next);
    }
    catch (error) {
        const message = `the clean checkout of ${head.slice(0, 12)} could not be made: ${error.message}`;
        return finish({ crash: message, interrupted: false, success: false }, 'crashed');
    }
    const verification = verified.verification;
    record.verification = verification;
    emit({ type: 'verify_finished', verification });
    if (verification.verdict === 'interrupted')
        return finish({ interrupted: true, success: false }, 'interrupted');
    if (verification.verdict === 'passed')
        return finish({ interrupted: false, success: true }, 'passed');
    // As if the gates had failed: the clean checkout's output is what the next prompt shows.
    record.failureFingerprint = failureFingerprint(verified.failures);
    next = { ...next, previousChecks: cleanFailures(verification) };
    return finish({ interrupted: false, success: false }, 'checks_failed');
}

;// CONCATENATED MODULE: ./src/loop/overview.ts
// The run at a glance, in Markdown: each iteration's verdict, gates, cost and duration as a table, and the
// cost and duration per iteration as charts (mermaid xychart, which GitHub renders). progress.md opens
// with them, and the job summary shows the same ones (src/report/summary.ts): one renderer for both.

const VERDICT = {
    passed: '✅ passed',
    completed: '✅ done',
    checks_failed: '❌ gates failed',
    checks_passed_no_tag: '🟡 gates pass, no completion tag',
    agent_failed: '⚠️ agent failed',
    agent_timed_out: '⏱️ agent timed out',
    ran: '➖ ran',
    interrupted: '⏹️ stopped',
    crashed: '💥 crashed'
};
const verdictLabel = (verdict) => VERDICT[verdict];
/** `42s`, `3m 05s`, `1h 02m`. */
// Padded so durations line up in the reports' tables; prompts and the CLI keep the reference's `2m 30s` (ralph/render.ts).
function overview_formatDuration(ms) {
    const s = Math.round(ms / 1000);
    if (s < 60)
        return `${s}s`;
    const m = Math.floor(s / 60);
    if (m < 60)
        return `${m}m ${String(s % 60).padStart(2, '0')}s`;
    return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}
/** One agent run's cost: dollars, or "unknown" when the agent reported none. */
function iterationCost(it) {
    if (!it.agent)
        return '–';
    const usage = it.agent.usage;
    return usage.cost_source === 'unknown' && usage.cost_usd === 0 ? 'unknown' : `$${usage.cost_usd.toFixed(4)}`;
}
/** The run's cost: dollars and where they come from, or "unknown" when no agent reported any. */
function formatCost(status) {
    const { cost } = status;
    if (cost.source === 'unknown' && cost.totalUsd === 0)
        return 'unknown (the agent reported no cost)';
    return `$${cost.totalUsd.toFixed(4)} (${cost.source})`;
}
/** The gates in the order they ran, the baseline's first. */
function gateNames(status) {
    const names = [];
    for (const checks of [status.baseline?.checks ?? [], ...status.iterations.map(it => it.checks)])
        for (const c of checks)
            if (!names.includes(c.name))
                names.push(c.name);
    return names;
}
const MAX_GATE_COLUMNS = 6;
/** A gate's time in a table: tenths of a second below a minute (which gate to speed up is in the tenths). */
function gateTime(ms) {
    return ms < 59_950 ? `${(ms / 1000).toFixed(1)}s` : overview_formatDuration(ms);
}
const BASELINE_LABEL = {
    green: '✅ baseline: gates pass',
    failing: '🔎 baseline: gates failing',
    interrupted: '⏹️ baseline: stopped'
};
/**
 * The iteration table: verdict, each gate ✓/✗ with its duration, cost, duration. The baseline (the gates
 * before the first agent run) is row 0; then the last `maxRows` iterations, with a line saying where the
 * others are (`elsewhere`, e.g. "in the run record").
 */
function iterationTable(status, maxRows = 50, elsewhere = 'in the run record') {
    const gates = gateNames(status);
    const columns = gates.length <= MAX_GATE_COLUMNS;
    const head = ['#', 'Verdict', ...(columns ? gates.map(g => codeCell(g)) : ['Gates']), 'Cost', 'Duration'];
    const gateCells = (checks) => {
        if (columns)
            return gates.map(g => {
                const check = checks.find(c => c.name === g);
                return check ? `${check.passed ? '✓' : '✗'} ${gateTime(check.durationMs)}` : '–';
            });
        const slowest = checks.reduce((top, c) => (top && top.durationMs >= c.durationMs ? top : c), undefined);
        const tally = `${checks.filter(c => c.passed).length}/${checks.length} ✓`;
        return [slowest ? `${tally} (slowest ${codeCell(slowest.name)} ${gateTime(slowest.durationMs)})` : tally];
    };
    const rows = [];
    const baseline = status.baseline;
    if (baseline)
        rows.push([
            '0',
            BASELINE_LABEL[baseline.verdict],
            ...gateCells(baseline.checks),
            '–',
            overview_formatDuration(baseline.durationMs)
        ]);
    const shown = status.iterations.slice(-maxRows);
    for (const it of shown)
        rows.push([
            String(it.iteration),
            verdictLabel(it.verdict),
            ...gateCells(it.checks),
            iterationCost(it),
            overview_formatDuration(it.durationMs)
        ]);
    const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
    for (const row of rows)
        lines.push(`| ${row.join(' | ')} |`);
    const hidden = status.iterations.length - shown.length;
    if (hidden > 0)
        lines.push('', `_${hidden} earlier iteration${hidden === 1 ? ' is' : 's are'} ${elsewhere}._`);
    return lines.join('\n');
}
const CHART_POINTS = 50;
/** Mermaid xychart blocks: cost (when known) and duration per iteration (the last 50). */
function charts(status) {
    const its = status.iterations.slice(-CHART_POINTS);
    if (its.length === 0)
        return '';
    const x = `x-axis "Iteration" [${its.map(it => it.iteration).join(', ')}]`;
    const blocks = [];
    const costs = its.map(it => it.agent?.usage.cost_usd ?? 0);
    if (costs.some(c => c > 0)) {
        const top = Math.max(...costs);
        blocks.push(fence([
            'xychart-beta',
            '  title "Cost per iteration (USD)"',
            `  ${x}`,
            `  y-axis "USD" 0 --> ${Number((top * 1.1).toPrecision(3))}`,
            `  bar [${costs.map(c => Number(c.toFixed(4))).join(', ')}]`
        ].join('\n'), 'mermaid'));
    }
    const seconds = its.map(it => Math.round(it.durationMs / 100) / 10);
    blocks.push(fence([
        'xychart-beta',
        '  title "Duration per iteration (seconds)"',
        `  ${x}`,
        `  y-axis "seconds" 0 --> ${Math.max(1, Math.ceil(Math.max(...seconds) * 1.1))}`,
        `  bar [${seconds.join(', ')}]`,
        `  line [${seconds.join(', ')}]`
    ].join('\n'), 'mermaid'));
    return blocks.join('\n\n');
}
/** Lines of a failing gate's output that say why, first: errors and failures before anything else. */
const WHY = /fail|error|✖|assert|expected|not ok|exception/i;
/** How much of a failing gate's output the gate table shows. */
const WHY_LINES = 2;
const WHY_CHARS = 160;
/** `✗ exit 1: AssertionError…`: a gate's state in one table cell. */
function gateState(check) {
    if (!check)
        return '–';
    const tests = check.tests;
    if (check.passed)
        return tests ? `✓ ${tests.passed}/${tests.run} tests passed` : '✓ passed';
    const how = check.timedOut
        ? 'timed out'
        : check.killedBy
            ? `stopped (${check.killedBy})`
            : check.exitCode === null
                ? 'not started'
                : `exit ${check.exitCode}`;
    const lines = check.tail
        .split('\n')
        .map(line => line.trim())
        .filter(Boolean);
    const why = [...lines.filter(line => WHY.test(line)), ...lines].slice(0, WHY_LINES).join(' · ');
    return `✗ ${how}${why ? `: ${code(cell(why, WHY_CHARS))}` : ''}`;
}
/** The clean verification's sentence (with its protected-path reverts), or why there was none. */
function verificationSentence(status) {
    const verification = status.verification;
    if (status.verify === 'tree')
        return '_Not verified on a clean checkout (`verify: tree`): the gates ran in the loop’s own tree only._';
    if (!verification)
        return undefined;
    const short = code(verification.commit.slice(0, 12));
    const reverts = verification.protectedReverts?.length
        ? ` Protected paths put back from the base before its gates ran: ${verification.protectedReverts.map(p => code(p)).join(', ')}.`
        : '';
    const setup = verification.setup.length > 0 ? ', after the setup commands' : '';
    if (verification.verdict === 'passed')
        return `**Verified on a clean checkout of ${short}**: every gate passed again on exactly that commit, with no ignored or untracked file of the loop’s tree${setup}.${reverts}`;
    if (verification.verdict === 'interrupted')
        return `_The clean checkout of ${short} was stopped before its gates finished._`;
    return `**The gates failed on a clean checkout of ${short}** (they passed in the loop’s own tree)${setup}.${reverts}`;
}
/**
 * Each gate at the start (the baseline) and at the end (the clean checkout's run when there was one, else the
 * last iteration's), with the first lines of why a failing one failed, then the clean verification's sentence.
 */
function gateEvidence(status) {
    const end = status.verification?.checks.length
        ? status.verification.checks
        : status.iterations.at(-1)?.checks;
    const names = gateNames(status);
    for (const c of end ?? [])
        if (!names.includes(c.name))
            names.push(c.name);
    if (names.length === 0)
        return '_No gates: the agent’s completion signal decides._';
    const find = (runs, name) => runs?.find(c => c.name === name);
    const commandOf = (name) => find(end, name)?.run ??
        find(status.baseline?.checks, name)?.run ??
        status.iterations.flatMap(it => it.checks).find(c => c.name === name)?.run ??
        '';
    const rows = names.map(name => [
        codeCell(name),
        codeCell(commandOf(name), 60),
        gateState(find(status.baseline?.checks, name)),
        gateState(find(end, name))
    ]);
    const lines = [
        '| Gate | Command | At the start | At the end |',
        '| --- | --- | --- | --- |',
        ...rows.map(row => `| ${row.join(' | ')} |`)
    ];
    const sentence = verificationSentence(status);
    return sentence ? `${lines.join('\n')}\n\n${sentence}` : lines.join('\n');
}

;// CONCATENATED MODULE: ./src/loop/record.ts
// The run record, written as the loop goes so a killed run keeps everything up to the iteration in flight:
// progress.md (for people), status.json (the whole typed status, replaced atomically), and
// logs/iteration-NNN/{prompt.md, agent.log, agent.jsonl, commands/<name>.log, checks/<name>.log}.
// Writes are synchronous, but for status.json while the loop runs: it is replaced off the main thread, one
// write at a time, later ones coalesced; the last one is awaited before the record is finished.






const PROGRESS_FILE = 'progress.md';
const STATUS_FILE = 'status.json';
const record_seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;
const dollars = (usd) => `$${usd.toFixed(4)}`;
const indent = (text, by) => text
    .split('\n')
    .map(line => (line ? by + line : line))
    .join('\n');
function checkLine(check) {
    const how = check.passed
        ? ''
        : check.timedOut
            ? ', timed out'
            : check.killedBy
                ? `, stopped (${check.killedBy})`
                : `, ${ended(check)}`;
    const tests = check.tests ? `, ${check.tests.run} test${check.tests.run === 1 ? '' : 's'}` : '';
    const head = `- ${check.passed ? 'PASS' : 'FAIL'} \`${check.name}\` (${record_seconds(check.durationMs)}${how}${tests})`;
    const tail = check.tail.trimEnd();
    if (check.passed) {
        const last = tail.split('\n').at(-1)?.trim();
        return last ? `${head}: ${last.slice(0, 200)}` : head;
    }
    return tail ? `${head}\n\n${indent(fence(tail), '  ')}\n` : head;
}
/** `- Checks: 1/3 passing (gates 3.1s)` and a line a check. */
function checkLines(checks, wallMs) {
    const passing = checks.filter(c => c.passed).length;
    const took = wallMs !== undefined ? ` (gates ${record_seconds(wallMs)})` : '';
    return [`- Checks: ${passing}/${checks.length} passing${took}`, '', ...checks.map(checkLine)];
}
/** The baseline in a few words: `every check passes`, `2 of 3 checks failing` or `stopped`. */
function baselineVerdict(baseline) {
    if (baseline.verdict === 'green')
        return 'every check passes';
    if (baseline.verdict === 'interrupted')
        return 'stopped';
    return `${baseline.checks.filter(c => !c.passed).length} of ${baseline.checks.length} checks failing`;
}
/** The progress.md section of the baseline: the gates before iteration 1, as an iteration 0. */
function baselineSection(baseline) {
    const lines = [
        `## Baseline (iteration 0): ${baselineVerdict(baseline)}`,
        '',
        `- Started ${baseline.startedAt} · ${record_seconds(baseline.durationMs)} · the gates alone, before the first agent run${baseline.parallel ? ', run together' : ''}`,
        ...checkLines(baseline.checks, baseline.checksMs)
    ];
    return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n\n`;
}
/** The progress.md section of the setup commands, run before the baseline. */
function setupSection(runs) {
    const passing = runs.every(run => run.passed);
    const lines = [
        `## Setup: ${passing ? 'done' : 'failed'}`,
        '',
        '- The setup commands, before the first gate ran',
        '',
        ...runs.map(checkLine)
    ];
    return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n\n`;
}
/** The progress.md lines of a clean verification (verify.ts). */
function verificationLines(verification) {
    const short = verification.commit.slice(0, 12);
    const head = verification.verdict === 'passed'
        ? `- Verified on a clean checkout of ${short}: every gate passed (${record_seconds(verification.durationMs)})`
        : verification.verdict === 'interrupted'
            ? `- Clean checkout of ${short}: stopped`
            : `- Clean checkout of ${short}: FAILED, so the iteration does not count as passing (${record_seconds(verification.durationMs)})`;
    const reverts = verification.protectedReverts?.length
        ? [`- Protected paths put back from the base there: ${verification.protectedReverts.join(', ')}`]
        : [];
    const runs = [...verification.setup, ...verification.checks].filter(run => !run.passed).map(checkLine);
    return [head, ...reverts, ...(runs.length > 0 ? ['', ...runs] : [])];
}
/** The progress.md section of one iteration. */
function progressSection(record) {
    const verdict = record.verdict === 'checks_passed_no_tag'
        ? 'checks pass; the agent has not given the completion tag'
        : record.verdict.replace(/_/g, ' ');
    const lines = [`## Iteration ${record.iteration}: ${verdict}`, ''];
    const agent = record.agent;
    const spent = iterationCost(record);
    const cost = agent ? ` · cost ${spent}${spent === 'unknown' ? '' : ` (${agent.usage.cost_source})`}` : '';
    lines.push(`- Started ${record.startedAt} · ${record_seconds(record.durationMs)}${cost}`);
    if (record.commands.length > 0)
        lines.push(`- Commands: ${record.commands
            .map(c => `\`${c.name}\` ${c.timedOut ? 'timed out' : ended(c)} (${record_seconds(c.durationMs)})`)
            .join(', ')}`);
    if (agent) {
        const end = agent.killedBy
            ? `stopped (${agent.killedBy})`
            : agent.timedOut
                ? 'timed out'
                : `${ended(agent)}${agent.isError ? ', reported an error' : ''}`;
        lines.push(`- Agent (${agent.preset}): ${end} in ${record_seconds(agent.durationMs)}`);
        const failure = agent.failure;
        if (failure)
            lines.push(`- Agent failure (${failure.kind.replace(/_/g, ' ')}): ${failure.message}${failure.resetsAt ? ` (lifts at ${failure.resetsAt})` : ''}`);
        if (agent.permissionDenials?.length)
            lines.push(`- Permission denied: ${agent.permissionDenials.map(d => (d.detail ? `${d.tool} (${d.detail})` : d.tool)).join(', ')}`);
        if (agent.apiRetries)
            lines.push(`- API retries: ${agent.apiRetries}`);
        const requests = agent.usage.requests;
        if (requests) {
            const count = (n, what) => (n > 0 ? `, ${n} ${what}` : '');
            const unread = requests.filter(r => r.unread).length;
            lines.push(`- Model requests metered at the wire: ${requests.length}` +
                count(requests.filter(r => r.cut).length, 'cut at the budget') +
                count(requests.filter(r => r.refused).length, 'refused (their worst case did not fit in the budget)') +
                count(unread, 'unreadable (their cost is unknown; charged their worst case)') +
                count(requests.filter(r => r.worst_case && !r.unread).length, 'with no usage seen (charged their worst case)'));
        }
        const said = agent.usage.agent_said;
        if (said) {
            const diff = agent.usage.cost_usd - said.cost_usd;
            lines.push(`- The agent's own figure: $${said.cost_usd.toFixed(4)} (${said.cost_source}); metered minus that: ${diff < 0 ? '-' : '+'}$${Math.abs(diff).toFixed(4)}`);
        }
    }
    const signal = record.completion.given
        ? 'given'
        : record.completion.statusExit === false
            ? 'not given (EXIT_SIGNAL: false)'
            : 'not given';
    if (agent)
        lines.push(`- Completion signal: ${signal}`);
    if (record.reverts?.length)
        lines.push(`- Protected paths put back from the start commit before the checks: ${record.reverts.map(r => `${code(r.path)} (${r.why})`).join(', ')}`);
    if (record.checks.length > 0)
        lines.push(...checkLines(record.checks, record.checksMs));
    if (record.diffStat !== undefined) {
        const summary = record.diffStat.trim().split('\n').at(-1)?.trim();
        lines.push(`- Changed since the start: ${summary || 'nothing'}${record.progressed === false ? ' (no change this iteration)' : ''}`);
    }
    if (record.commit?.sha)
        lines.push(`- Commit: ${record.commit.sha}`);
    if (record.verification)
        lines.push(...verificationLines(record.verification));
    if (record.commit?.error)
        lines.push(`- Commit failed: ${record.commit.error}`);
    if (record.error)
        lines.push(`- Crashed: ${record.error}`);
    return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n\n`;
}
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
function record_header(status) {
    const budgets = status.budgets;
    const limits = [
        budgets.maxIterations !== undefined
            ? `at most ${plural(budgets.maxIterations, 'iteration')}`
            : 'no iteration cap',
        budgets.maxTimeSeconds !== undefined ? `max time ${budgets.maxTimeSeconds}s` : undefined,
        budgets.maxCostUsd !== undefined ? `max cost ${dollars(budgets.maxCostUsd)}` : undefined,
        budgets.agentTimeoutSeconds !== undefined ? `agent timeout ${budgets.agentTimeoutSeconds}s` : undefined
    ].filter(Boolean);
    return [
        `# Ralph loop: ${status.ralph.name}`,
        '',
        `- Started ${status.startedAt} in ${status.workTree}${status.worktree ? ` (worktree on branch ${status.worktree.branch})` : ''}`,
        `- Budgets: ${limits.join(', ')}`,
        status.start.commit ? `- Starting commit: ${status.start.commit}` : undefined,
        '',
        ''
    ]
        .filter(line => line !== undefined)
        .join('\n');
}
/** What an enforced stop was measured from. */
const CROSSING = {
    timeout: 'the time budget ran out',
    budget_exhausted: 'the cost budget was reached',
    cancelled: 'the cancel'
};
/** How the run ended, then the overview (the iteration table, the cost and duration charts), then each gate start to end. */
function outcome(result) {
    const lines = [
        `## Stopped: ${result.stopReason}`,
        '',
        `${result.stopDetail}`,
        '',
        `- Iterations: ${result.iterations.length} · duration ${record_seconds(result.durationMs)}`,
        `- Cost: ${formatCost(result)}${result.cost.enforced ? '' : ' (the dollar budget could not be enforced)'}`
    ];
    const enforced = result.enforcement;
    if (enforced)
        lines.push(`- Enforcement: ${enforced.killed ? `the ${enforced.killed} was stopped` : 'nothing was running; the loop stopped'} ${enforced.latencyMs} ms after ${CROSSING[enforced.cause]}`);
    const jobs = result.chain?.jobs ?? [];
    if (jobs.length > 0)
        lines.push(`- Jobs: ${jobs.length}, this one last: ${jobs.map((job, i) => `${i + 1}. run ${job.run.id} (${plural(job.iterations, 'iteration')}, ${dollars(job.costUsd)}, ${record_seconds(job.durationMs)}, ${job.stopReason})`).join('; ')}`);
    for (const warning of result.warnings)
        lines.push(`- Warning: ${warning}`);
    if (result.iterations.length > 0 || result.baseline)
        lines.push('', '## Overview', '', iterationTable(result, Infinity), '', charts(result), '', '## Gates', '', gateEvidence(result));
    return `${lines.join('\n')}\n\n`;
}
/** Where the iterations go in the compact status.json (only the top level has an `iterations` key). */
const ITERATIONS_SLOT = '"iterations":[]';
/**
 * The finished iterations as the bytes of a JSON array's contents (`{…},{…}`), each serialised once:
 * status.json is rewritten after every iteration; serialising them all each time made long runs quadratic.
 */
class IterationsJson {
    bytes = Buffer.alloc(0);
    length = 0;
    /** The records serialised, and where each one's bytes end. */
    records = [];
    ends = [];
    /** Brings the bytes up to `iterations`: records are final once listed; one replaced is serialised again. */
    update(iterations) {
        let same = 0;
        while (same < this.records.length && same < iterations.length && this.records[same] === iterations[same])
            same++;
        this.records.length = same;
        this.ends.length = same;
        this.length = same > 0 ? this.ends[same - 1] : 0;
        for (let i = same; i < iterations.length; i++) {
            this.append(`${i > 0 ? ',' : ''}${JSON.stringify(iterations[i])}`);
            this.records.push(iterations[i]);
            this.ends.push(this.length);
        }
        return this.bytes.subarray(0, this.length);
    }
    append(text) {
        const needed = this.length + Buffer.byteLength(text);
        if (needed > this.bytes.length) {
            const grown = Buffer.alloc(Math.max(needed, this.bytes.length * 2, 64 * 1024));
            this.bytes.copy(grown, 0, 0, this.length);
            this.bytes = grown;
        }
        this.length += this.bytes.write(text, this.length);
    }
}
/** Writes `pieces` to a new `file` (writev: the iterations' bytes are never copied into one string). */
function writeAllSync(file, pieces) {
    const fd = (0,external_node_fs_namespaceObject.openSync)(file, 'w');
    try {
        const rest = pieces.filter(piece => piece.length > 0);
        while (rest.length > 0) {
            let written = (0,external_node_fs_namespaceObject.writevSync)(fd, rest);
            // A short write (rare for files): carry on from where it stopped.
            while (rest.length > 0 && written >= rest[0].length)
                written -= rest.shift().length;
            if (rest.length > 0 && written > 0)
                rest[0] = rest[0].subarray(written);
        }
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** The same, without blocking the event loop. */
async function writeAll(file, pieces) {
    const handle = await (0,external_node_fs_promises_namespaceObject.open)(file, 'w');
    try {
        let rest = pieces.filter(piece => piece.length > 0);
        while (rest.length > 0) {
            let { bytesWritten: written } = await handle.writev(rest);
            rest = [...rest];
            while (rest.length > 0 && written >= rest[0].length)
                written -= rest.shift().length;
            if (rest.length > 0 && written > 0)
                rest[0] = rest[0].subarray(written);
        }
    }
    finally {
        await handle.close();
    }
}
/**
 * Makes `dir` and its missing parents, one level at a time. Node's recursive mkdirSync loops forever where the
 * kernel answers ENOENT to a mkdir whose parent exists (/proc/nope): here that mkdir's error is thrown at once.
 */
function makeFolder(dir) {
    const missing = [];
    for (let d = external_node_path_default().resolve(dir); !(0,external_node_fs_namespaceObject.existsSync)(d); d = external_node_path_default().dirname(d))
        missing.unshift(d);
    for (const d of missing)
        try {
            (0,external_node_fs_namespaceObject.mkdirSync)(d);
        }
        catch (error) {
            if (error.code !== 'EEXIST')
                throw error;
        }
}
class RunRecord {
    dir;
    iterations = new IterationsJson();
    /** The status.json write in flight, the status to write after it, and a failure not yet reported. */
    writing;
    next;
    failed;
    constructor(dir) {
        this.dir = dir;
    }
    /**
     * Creates the record folder (and logs/) and starts progress.md. A loop that goes on from an earlier job's
     * (`earlier`) starts with that record's logs and, in progress.md, a section per earlier job.
     */
    static create(dir, status, earlier) {
        makeFolder(external_node_path_default().join(dir, 'logs'));
        const record = new RunRecord(dir);
        const progress = external_node_path_default().join(dir, PROGRESS_FILE);
        (0,external_node_fs_namespaceObject.writeFileSync)(progress, record_header(status));
        if (earlier) {
            const logs = external_node_path_default().join(earlier.dir, 'logs');
            if ((0,external_node_fs_namespaceObject.existsSync)(logs))
                (0,external_node_fs_namespaceObject.cpSync)(logs, external_node_path_default().join(dir, 'logs'), { recursive: true, verbatimSymlinks: true });
            const before = external_node_path_default().join(earlier.dir, PROGRESS_FILE);
            const out = (0,external_node_fs_namespaceObject.openSync)(progress, 'a');
            try {
                // The first job's sections get their heading here; a later job's record has them already.
                if (earlier.jobs.length === 1)
                    (0,external_node_fs_namespaceObject.writeSync)(out, jobHeading(1, earlier.jobs[0].run));
                if ((0,external_node_fs_namespaceObject.existsSync)(before))
                    copyFrom(before, earlier.sectionsAt ?? firstSection(before), out);
                (0,external_node_fs_namespaceObject.writeSync)(out, jobHeading(earlier.jobs.length + 1, earlier.run));
            }
            finally {
                (0,external_node_fs_namespaceObject.closeSync)(out);
            }
        }
        // The first status.json is there at once: a post step after an early kill reads it.
        record.writeStatusNow(status);
        return record;
    }
    /** A record written earlier, e.g. to finish one whose loop was killed (the action's post step). */
    static open(dir) {
        return new RunRecord(dir);
    }
    /** `logs/<name>`, created. */
    logsDir(name) {
        const dir = external_node_path_default().join(this.dir, 'logs', name);
        (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
        return dir;
    }
    /** `logs/iteration-NNN`, created. */
    iterationDir(iteration) {
        const dir = external_node_path_default().join(this.dir, 'logs', `iteration-${String(iteration).padStart(3, '0')}`);
        (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
        return dir;
    }
    /** A path inside the record, relative to its folder (how results name files). */
    relative(file) {
        return external_node_path_default().relative(this.dir, file).split((external_node_path_default()).sep).join('/');
    }
    writePrompt(iteration, prompt) {
        const file = external_node_path_default().join(this.iterationDir(iteration), 'prompt.md');
        (0,external_node_fs_namespaceObject.writeFileSync)(file, prompt);
        return { file: this.relative(file), bytes: Buffer.byteLength(prompt) };
    }
    /**
     * Replaces status.json atomically (write, then rename), so readers never see half a file. It is
     * rewritten after every iteration, so it is compact while the loop runs and indented once finished.
     * Iteration records are final once they are in `status.iterations`: each is serialised only once.
     * The write happens off the main thread: one at a time, and calls made meanwhile become one write of the
     * status as it is when that write starts. A failure is thrown by the next call, or by flush().
     */
    writeStatus(status) {
        this.throwFailure();
        this.next = status;
        this.writing ??= this.drain();
    }
    /** Waits for status.json to hold the last status given; throws a write's failure. */
    async flush() {
        while (this.writing)
            await this.writing;
        this.throwFailure();
    }
    async drain() {
        const file = external_node_path_default().join(this.dir, STATUS_FILE);
        const temp = `${file}.${process.pid}.tmp`;
        try {
            for (let status = this.next; status; status = this.next) {
                this.next = undefined;
                // Serialised when the write starts (the iterations' bytes are reused, so never during one).
                await writeAll(temp, this.statusJson(status));
                await (0,external_node_fs_promises_namespaceObject.rename)(temp, file);
            }
        }
        catch (error) {
            this.next = undefined;
            this.failed = error;
        }
        finally {
            this.writing = undefined;
        }
    }
    throwFailure() {
        const failed = this.failed;
        if (failed === undefined)
            return;
        this.failed = undefined;
        throw failed;
    }
    writeStatusNow(status) {
        const file = external_node_path_default().join(this.dir, STATUS_FILE);
        const temp = `${file}.${process.pid}.tmp`;
        writeAllSync(temp, this.statusJson(status));
        (0,external_node_fs_namespaceObject.renameSync)(temp, file);
    }
    /** The pieces of `JSON.stringify(status)` (indented once finished) and a final newline. */
    statusJson(status) {
        if (status.state === 'finished')
            return [Buffer.from(`${JSON.stringify(status, null, 2)}\n`)];
        const shell = JSON.stringify({ ...status, iterations: [] });
        const slot = shell.indexOf(ITERATIONS_SLOT);
        if (slot === -1)
            return [Buffer.from(`${JSON.stringify(status)}\n`)];
        const at = slot + ITERATIONS_SLOT.length - 1;
        return [
            Buffer.from(shell.slice(0, at)),
            this.iterations.update(status.iterations),
            Buffer.from(`${shell.slice(at)}\n`)
        ];
    }
    appendBaseline(baseline) {
        (0,external_node_fs_namespaceObject.appendFileSync)(external_node_path_default().join(this.dir, PROGRESS_FILE), baselineSection(baseline));
    }
    appendSetup(runs) {
        (0,external_node_fs_namespaceObject.appendFileSync)(external_node_path_default().join(this.dir, PROGRESS_FILE), setupSection(runs));
    }
    appendIteration(record) {
        (0,external_node_fs_namespaceObject.appendFileSync)(external_node_path_default().join(this.dir, PROGRESS_FILE), progressSection(record));
    }
    /**
     * Rewrites progress.md to open with the outcome and the overview, the iterations' sections (written as
     * the loop went) after them, and writes the final status.json, after any write still in flight. The
     * sections are copied, never held whole.
     */
    async finish(result) {
        // An earlier status write that failed is overwritten now: the record must still end finished.
        await this.flush().catch(() => undefined);
        const file = external_node_path_default().join(this.dir, PROGRESS_FILE);
        const temp = `${file}.${process.pid}.tmp`;
        const out = (0,external_node_fs_namespaceObject.openSync)(temp, 'w');
        try {
            const head = record_header(result) + outcome(result);
            (0,external_node_fs_namespaceObject.writeSync)(out, head);
            // Where the sections start, for a later job of a chain to copy them without the outcome before them.
            result.progressSectionsAt = Buffer.byteLength(head);
            copyFrom(file, firstSection(file), out);
        }
        finally {
            (0,external_node_fs_namespaceObject.closeSync)(out);
        }
        (0,external_node_fs_namespaceObject.renameSync)(temp, file);
        this.writeStatusNow(result);
    }
}
/** The heading of one job's sections in a chain's progress.md. */
function jobHeading(n, run) {
    return `## Job ${n}: run ${run.id}${run.attempt !== '1' ? ` (attempt ${run.attempt})` : ''}${run.url ? ` (${run.url})` : ''}\n\n`;
}
/** Where progress.md's first section starts: the baseline's, else the first iteration's. */
function firstSection(file) {
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(file, 'r');
    }
    catch {
        return undefined;
    }
    try {
        const start = Buffer.alloc(64 * 1024);
        const read = (0,external_node_fs_namespaceObject.readSync)(fd, start, 0, start.length, 0);
        // The setup's and the baseline's sections, when there are, come before the first iteration's.
        const found = ['\n## Job ', '\n## Setup: ', '\n## Baseline (iteration 0)', '\n## Iteration ']
            .map(heading => start.subarray(0, read).indexOf(heading))
            .filter(at => at !== -1);
        return found.length === 0 ? undefined : Math.min(...found) + 1;
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}
/** Appends `file` from byte `offset` to the open `out`, a chunk at a time. */
function copyFrom(file, offset, out) {
    if (offset === undefined)
        return;
    const fd = (0,external_node_fs_namespaceObject.openSync)(file, 'r');
    try {
        const chunk = Buffer.alloc(1024 * 1024);
        for (let at = offset;;) {
            const read = (0,external_node_fs_namespaceObject.readSync)(fd, chunk, 0, chunk.length, at);
            if (read === 0)
                break;
            (0,external_node_fs_namespaceObject.writeSync)(out, chunk.subarray(0, read));
            at += read;
        }
    }
    finally {
        (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}

;// CONCATENATED MODULE: ./src/loop/setup.ts
// What the loop settles before anything runs: the settings checked, the agent's preset, and the work tree
// (a git worktree when asked, with the project root and the ralph's folder mapped into it).






/** The nearest existing ancestor's real path, plus the rest: comparable with realpath'd work trees. */
function realish(p) {
    const abs = external_node_path_default().resolve(p);
    if ((0,external_node_fs_namespaceObject.existsSync)(abs))
        return (0,external_node_fs_namespaceObject.realpathSync)(abs);
    const parent = external_node_path_default().dirname(abs);
    return parent === abs ? abs : external_node_path_default().join(realish(parent), external_node_path_default().basename(abs));
}
function setup_isInside(child, parent) {
    const rel = external_node_path_default().relative(realish(parent), realish(child));
    return rel === '' || (!rel.startsWith('..') && !external_node_path_default().isAbsolute(rel));
}
/** Throws RalphError for settings that cannot work, before anything runs or is written. */
function checkConfig(config, workspace, isRepo) {
    if (setup_isInside(config.recordDir, workspace.root) || setup_isInside(config.recordDir, config.projectRoot))
        throw new RalphError(`The record folder ${config.recordDir} is inside the work tree ${workspace.root}: the record must never be ` +
            'committed or seen by the agent. Choose a folder outside it (the default is under the system temp dir).');
    if ((config.commit || config.worktree) && !isRepo)
        throw new RalphError(`${config.worktree ? '--worktree' : '--commit'} needs a git repository, and ${config.projectRoot} is not in one: run it inside one (git init), or leave ${config.worktree ? '--worktree' : '--commit'} out.`);
    if (config.maxIterations !== undefined && !(config.maxIterations >= 1))
        throw new RalphError(`maxIterations must be at least 1, got ${config.maxIterations}.`);
    const problem = gateSettingsProblem(config);
    if (problem)
        throw new RalphError(problem);
}
/** The preset the loop runs its agent with (the action's log uses it too, to render the same way). */
function agentPresetFor(config) {
    // The reference runtime has no dollar budget: with one, the agent's cost must be readable.
    const flags = config.maxCostUsd !== undefined ? 'all' : (config.presetFlags ?? 'all');
    try {
        return presetFor(config.ralph.agentArgv, { presets: config.presets, flags, cost: config.agentCost });
    }
    catch (error) {
        throw new RalphError(error.message);
    }
}
/**
 * Opens the work tree, after checking the settings (throws RalphError for settings that cannot work, or a
 * worktree that cannot be created). The caller disposes of the answered workspace.
 */
async function openWorkTree(config, ports, startedAt) {
    const limit = { maxFileBytes: config.maxFileBytes };
    let workspace = ports.workspace ?? (await GitWorkspace.open(config.projectRoot, limit));
    const isRepo = await workspace.isRepo();
    checkConfig(config, workspace, isRepo);
    if (!config.worktree)
        return { workspace, isRepo, workTree: config.projectRoot, ralph: config.ralph };
    const repoRoot = workspace.root;
    const branch = config.worktree.branch ?? defaultBranch(config.ralph.name, startedAt);
    const worktree = await createWorktree(workspace.root, { branch, dir: config.worktree.dir }).catch((error) => {
        throw new RalphError(`The worktree for this run could not be created: ${error.message}`);
    });
    await workspace.dispose();
    workspace = await GitWorkspace.open(worktree.dir, limit);
    // The project root and the ralph's folder map to the same places inside the worktree (so `./` scripts
    // act on the worktree too); a ralph folder outside the repository, or not committed, stays put.
    const inWorktree = (dir) => {
        if (!setup_isInside(dir, repoRoot))
            return undefined;
        const mapped = external_node_path_default().join(worktree.dir, external_node_path_default().relative(realish(repoRoot), realish(dir)));
        return (0,external_node_fs_namespaceObject.existsSync)(mapped) ? mapped : undefined;
    };
    return {
        workspace,
        isRepo: true,
        workTree: inWorktree(config.projectRoot) ?? worktree.dir,
        ralph: { ...config.ralph, dir: inWorktree(config.ralph.dir) ?? config.ralph.dir },
        worktree
    };
}

;// CONCATENATED MODULE: ./src/loop/status.ts
/** A running status with no iterations, no cost and no warnings yet. */
function startingStatus(start = {}) {
    const maxUsd = start.budgets?.maxCostUsd;
    return {
        version: 1,
        state: 'running',
        ralph: start.ralph ?? { name: '', file: '', dir: '' },
        projectRoot: start.projectRoot ?? '',
        workTree: start.workTree ?? '',
        recordDir: start.recordDir ?? '',
        startedAt: start.startedAt ?? new Date(0).toISOString(),
        durationMs: 0,
        budgets: start.budgets ?? {},
        start: {},
        iterations: [],
        cost: {
            totalUsd: 0,
            source: 'unknown',
            enforced: true,
            tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
            ...(maxUsd !== undefined ? { maxUsd } : {})
        },
        success: false,
        warnings: []
    };
}

;// CONCATENATED MODULE: ./src/loop/usage-limit.ts
// A usage limit the agent hit: whether the loop can wait for it to lift, and for how long.
/** Without a time budget, the longest wait for a usage limit to lift (a GitHub-hosted job's own limit). */
const MAX_USAGE_LIMIT_WAIT_MS = 6 * 3600 * 1000;
/** Past the announced reset, a little more, so the next request does not arrive a moment too early. */
const USAGE_LIMIT_MARGIN_MS = 2000;
/** Whether the loop can wait for a usage limit to lift, and for how long; or why it cannot. */
function usageLimitWait(failure, now, deadline) {
    const said = failure.message;
    if (failure.resetsAt === undefined)
        return { stop: `the agent hit a usage limit and did not say when it lifts (${said})` };
    const resetsAt = Date.parse(failure.resetsAt);
    const waitMs = Math.max(0, resetsAt - now) + USAGE_LIMIT_MARGIN_MS;
    if (deadline !== undefined && now + waitMs >= deadline)
        return {
            stop: `the agent hit a usage limit that lifts at ${failure.resetsAt}, after the time budget ends (${new Date(deadline).toISOString()}): ${said}`
        };
    if (deadline === undefined && waitMs > MAX_USAGE_LIMIT_WAIT_MS)
        return {
            stop: `the agent hit a usage limit that lifts at ${failure.resetsAt}, more than 6 hours away (set a longer --max-time to wait for it): ${said}`
        };
    return { waitMs, detail: `the agent hit a usage limit; waiting until it lifts at ${failure.resetsAt}` };
}

;// CONCATENATED MODULE: ./src/loop/run-loop.ts
// runLoop: iterations until a stop reason, with budgets enforced by force and the record written as it goes.





















/** An iteration still running after this long is named in status.json (`inFlight`). */
const IN_FLIGHT_STATUS_DELAY_MS = 200;
/** Refused destinations warned one by one; the rest in one line (the record names up to MOST_REFUSALS_NAMED). */
const REFUSALS_WARNED = 10;
const run_loop_iso = (ms) => new Date(ms).toISOString();
/** The stop reasons that mean the loop reached its goal. */
const SUCCESS = ['all_checks_passed', 'completed', 'already_green'];
/**
 * One refused destination, with what would let it through: allowed-hosts for TCP, nothing short of open for
 * UDP. A host allowed-hosts already names was refused because the agent went there directly, not through the
 * proxy: adding it again would not help. Plain HTTP is never forwarded.
 */
function refusalWarning(network, target, allowedHosts) {
    if (target.startsWith('http://'))
        return `agent-network ${network} refused the agent a plain-HTTP request to ${target} through the proxy: it forwards HTTPS (CONNECT) to allowed-hosts, never plain HTTP`;
    if (target.startsWith('udp '))
        return `agent-network ${network} refused the agent a datagram to ${target.slice(4)}: only agent-network open lets UDP out (hosts in allowed-hosts need no DNS lookup: the proxy resolves them)`;
    const host = HOST_PORT.exec(target)?.[1];
    return host !== undefined && hostAllowed(host, allowedHosts)
        ? `agent-network ${network} refused the agent a direct connection to ${target}: ${host} is in allowed-hosts, reached only through the proxy's CONNECT (the HTTPS_PROXY in the agent's environment)`
        : `agent-network ${network} refused the agent a connection to ${target}: add it to allowed-hosts (agent-network allow-list) if the agent needs it`;
}
/**
 * Runs the loop to a stop reason and answers the whole result (also in `<recordDir>/status.json`).
 * Throws RalphError only for settings that cannot work (nothing has run then); everything that goes
 * wrong once the loop has started ends it with a stop reason and a finished record.
 */
async function runLoop(config, ports = {}) {
    const clock = ports.clock ?? systemClock;
    const emit = (event) => {
        try {
            ports.emit?.(event);
        }
        catch {
            // A front-end's rendering problem must not stop the loop.
        }
    };
    const startedAt = clock.now();
    // A loop that goes on from an earlier job: what it did counts here (iterations, dollars, the breaker).
    const carry = config.carry;
    const carried = carry?.status;
    const carriedUsd = carried?.cost.totalUsd ?? 0;
    const preset = agentPresetFor(config);
    const { workspace, isRepo, workTree, ralph, worktree } = await openWorkTree(config, ports, startedAt);
    // Pinned before anything else starts: a ralph file that leads out of the work tree ends the run here.
    let ralphFiles;
    try {
        ralphFiles = pinRalphFiles(ralph, workTree);
    }
    catch (error) {
        await workspace.dispose().catch(() => undefined);
        throw error;
    }
    // Behind the model proxy the agent holds a placeholder key and the meter counts what crossed the wire.
    let proxied;
    if (config.modelProxy) {
        try {
            proxied = await startAgentProxy(config.ralph.agentArgv, process.env, config.modelProxy, {
                // The proxy's own cap is what the chain has left.
                maxCostUsd: config.maxCostUsd === undefined ? undefined : Math.max(0, config.maxCostUsd - carriedUsd)
            });
        }
        catch (error) {
            await workspace.dispose().catch(() => undefined);
            if (error instanceof ModelProxyError)
                throw new RalphError(error.message);
            throw error;
        }
        const agentEnv = config.agentEnv ?? {};
        config = {
            ...config,
            agentEnv: {
                ...agentEnv,
                set: { ...agentEnv.set, ...proxied.agentEnv.set },
                remove: [...(agentEnv.remove ?? []), ...(proxied.agentEnv.remove ?? [])]
            }
        };
    }
    const meter = withCarriedCost(proxied?.meter ?? ports.costMeter ?? createCostMeter(priceFromTable), carriedUsd, carried?.cost.source);
    const deadline = config.maxTimeSeconds !== undefined ? startedAt + config.maxTimeSeconds * 1000 : undefined;
    const guard = new LoopGuard({ clock, signal: ports.signal, deadline, meter, maxCostUsd: config.maxCostUsd });
    const stopWatchingCost = meter.onChange(() => emit({
        type: 'cost_update',
        spentUsd: meter.spentUsd(),
        runningUsd: meter.runningUsd(),
        source: meter.source(),
        ...(config.maxCostUsd !== undefined ? { maxUsd: config.maxCostUsd } : {})
    }));
    const status = startingStatus({
        ralph: { name: config.ralph.name, file: config.ralph.file, dir: config.ralph.dir },
        projectRoot: config.projectRoot,
        workTree,
        recordDir: config.recordDir,
        startedAt: run_loop_iso(startedAt),
        budgets: {
            ...(config.maxIterations !== undefined ? { maxIterations: config.maxIterations } : {}),
            ...(config.maxTimeSeconds !== undefined ? { maxTimeSeconds: config.maxTimeSeconds } : {}),
            ...(config.maxCostUsd !== undefined ? { maxCostUsd: config.maxCostUsd } : {}),
            ...(config.agentTimeoutSeconds !== undefined ? { agentTimeoutSeconds: config.agentTimeoutSeconds } : {})
        }
    });
    if (worktree)
        status.worktree = worktree;
    if (carry && carried) {
        status.iterations = [...carried.iterations];
        if (carried.baseline)
            status.baseline = carried.baseline;
        status.chain = { jobs: carry.jobs };
        const { maxUsd: _earlierCap, ...cost } = carried.cost;
        status.cost = { ...cost, ...(config.maxCostUsd !== undefined ? { maxUsd: config.maxCostUsd } : {}) };
        if (!carried.cost.enforced)
            status.cost.enforced = false;
    }
    if (proxied)
        status.modelProxy = { upstream: proxied.upstream, requests: 0, refused: [] };
    let record;
    try {
        record = RunRecord.create(config.recordDir, status, carry?.recordDir !== undefined
            ? {
                dir: carry.recordDir,
                jobs: carry.jobs,
                run: carry.run,
                sectionsAt: carry.status.progressSectionsAt
            }
            : undefined);
    }
    catch (error) {
        guard.dispose();
        stopWatchingCost();
        await proxied?.close();
        await workspace.dispose().catch(() => undefined);
        throw new RalphError(`The record folder ${config.recordDir} cannot be written: ${fileProblem(error)}.`);
    }
    const warn = (message) => {
        if (status.warnings.includes(message))
            return;
        status.warnings.push(message);
        emit({ type: 'warning', message });
    };
    // What the work tree held that is never delivered (a nested repository, .gitmodules, a large file): once each.
    const warnRefused = () => {
        for (const line of workspace.refused?.() ?? []) {
            if (status.notDelivered?.includes(line))
                continue;
            (status.notDelivered ??= []).push(line);
            warn(line);
        }
    };
    // The agent's uid may reach only the proxy (model-only, allow-list): iptables, where the agent is its own user.
    let egress;
    let refusals;
    const network = config.modelProxy?.network ?? 'model-only';
    if (proxied && network !== 'open') {
        const { agentUid: uid, agentPrivilege: privilege } = config.modelProxy ?? {};
        const why = uid === undefined ? 'the agent does not run as its own user' : egressUnavailable(uid, privilege);
        if (why === undefined && uid !== undefined) {
            try {
                // The agent's other TCP and UDP (v4, v6) is named (from conntrack) as it is refused.
                refusals = await startRefusalListener(proxied.proxy, egressPrefix(privilege));
                egress = await restrictEgress({
                    uid,
                    proxyPort: proxied.proxy.port,
                    refusalPort: refusals.port,
                    prefix: egressPrefix(privilege)
                });
                if (egress.ipv6Unnamed)
                    warn(`the agent's IPv6 connections are refused but not named (this kernel has no IPv6 nat: ${egress.ipv6Unnamed})`);
            }
            catch (error) {
                warn(`egress is not enforced: the rules could not be set (${error.message})`);
            }
        }
        else
            warn(`egress is not enforced (agent-network ${network}): ${why}; the proxy still holds the model key and meters every token`);
    }
    const gated = config.checks.length > 0;
    const verify = verifyMode(config, isRepo);
    if (verify)
        status.verify = verify;
    let phase;
    let env = {
        config,
        ralph,
        workTree,
        workspace,
        ralphFiles,
        isRepo,
        preset,
        guard,
        meter,
        record,
        clock,
        emit,
        runProcess: proxied
            ? withoutModelKeys(ports.runProcess ?? runProcess, proxied.proxy.placeholderKey, proxied.proxyEnv)
            : (ports.runProcess ?? runProcess),
        ...(ports.agentEnvironment ? { agentEnvironment: ports.agentEnvironment } : {}),
        ...(ports.outputRoom ? { outputRoom: ports.outputRoom } : {}),
        killGraceMs: config.killGraceMs ?? defaults_DEFAULT_KILL_GRACE_MS,
        onPhase: now => (phase = now),
        ...(verify ? { verify } : {}),
        ...(ports.verify ? { verifyPorts: ports.verify } : {})
    };
    let memory = { history: carried?.iterations ?? [], trackTree: gated };
    // Without gates the loop keeps the reference's semantics: no stagnation rules, only the agent's denied
    // permissions (a loop whose agent may not use its tools can only burn money).
    const breaker = new StagnationBreaker(gated
        ? config.breaker
        : {
            noProgress: 0,
            sameFailure: 0,
            agentFailures: 0,
            ...(config.breaker.permissionDenials !== undefined
                ? { permissionDenials: config.breaker.permissionDenials }
                : {})
        });
    // The breaker's counts carry over: the earlier iterations are told to it again, as the loop told them.
    for (const earlier of carried?.iterations ?? []) {
        const signals = breakerSignals(earlier);
        if (signals)
            breaker.record(signals);
    }
    if (!isRepo && gated)
        warn('the work tree is not a git repository: progress cannot be seen, the no-progress rule is off');
    let stop;
    /** Where the budgets stand now, after `ran` iterations. */
    const budgets = (ran) => ({
        maxIterations: config.maxIterations,
        maxCostUsd: config.maxCostUsd,
        ran,
        last: status.iterations.at(-1),
        trip: guard.trip,
        timeSpent: guard.timeSpent(),
        costSpent: guard.costSpent(),
        finishAsked: ports.finishSignal?.aborted === true,
        gated,
        stopOnError: config.stopOnError
    });
    // What was running when the guard fired: what its enforcement killed.
    let killedPhase;
    guard.signal.addEventListener('abort', () => (killedPhase = phase), { once: true });
    /** How fast the guard's kill was: from the crossing to the killed tree being gone. */
    const noteEnforcement = (trip) => {
        status.enforcement = {
            cause: trip.cause,
            crossedAt: run_loop_iso(trip.at),
            latencyMs: Math.max(0, Math.round(clock.now() - trip.at))
        };
        if (killedPhase)
            status.enforcement.killed = killedPhase;
    };
    emit({ type: 'loop_started', status });
    try {
        if (isRepo) {
            const head = await workspace.headSha();
            const tree = await workspace.treeHash();
            // A continued loop starts where the chain started: the change, the protected paths and the clean
            // checkout's base are the chain's, and its progress is measured from the tree it was handed.
            const commit = carried ? carried.start.commit : head;
            status.start.tree = carried?.start.tree ?? tree;
            if (commit !== undefined)
                status.start.commit = commit;
            warnRefused();
            memory = {
                ...memory,
                startTree: status.start.tree,
                previousTree: tree,
                ...(commit !== undefined ? { startCommit: commit } : {})
            };
            if (config.protect && commit !== undefined) {
                const protection = await protectionOf(config, workTree, commit);
                if (protection) {
                    env = { ...env, protection };
                    status.protected = {
                        setting: config.protect,
                        rules: protection.rules,
                        paths: protection.paths.size,
                        ...(protection.guardrails !== undefined ? { guardrails: protection.guardrails } : {})
                    };
                }
            }
            record.writeStatus(status);
        }
        if (gated) {
            const packageJson = await startPackageJson(workspace, workTree, status.start.commit);
            const testRunners = recogniseGates(config.checks.map(check => check.run), packageJson);
            memory = { ...memory, testRunners };
            const uncounted = config.checks.flatMap((check, i) => {
                const found = testRunners[i];
                return found.runner === undefined ? [{ check: check.name, why: found.why }] : [];
            });
            if (uncounted.length > 0)
                status.uncounted = uncounted;
        }
        // What a fresh clone needs before its gates can pass (npm ci): before the baseline, as in the clean checkout.
        if ((config.setup ?? []).length > 0 && !ports.verifyOnly) {
            // A continued loop's checkout is fresh: setup runs again, its logs beside the earlier job's.
            const setupDir = carry
                ? record.logsDir(`job-${String(carry.jobs.length + 1).padStart(3, '0')}`)
                : record.iterationDir(0);
            const setup = await runSetup(env, workTree, setupDir);
            status.setup = setup.runs;
            record.appendSetup(setup.runs);
            record.writeStatus(status);
            emit({ type: 'setup_finished', setup: setup.runs });
            const failed = setup.runs.find(run => !run.passed);
            if (setup.interrupted) {
                if (guard.trip)
                    noteEnforcement(guard.trip);
            }
            else if (failed) {
                status.error = `the setup command ${failed.run} failed`;
                stop = {
                    reason: 'agent_error',
                    detail: `the setup command \`${failed.run}\` failed (${failed.timedOut ? 'timed out' : ended(failed)}) before any agent ran: its output is in ${failed.log}`
                };
            }
        }
        if (!stop && ports.verifyOnly)
            stop = await verifyAlone(env, memory, status, ports.verifyOnly, () => budgets(0));
        if (carried?.baseline) {
            // The baseline is the chain's: not run again; the last gates the agent saw are the earlier job's.
            const lastChecks = carried.iterations.at(-1)?.checks ?? carried.baseline.checks;
            memory = { ...memory, baseline: carried.baseline, previousChecks: lastChecks };
        }
        else if (carried && carried.iterations.length > 0)
            memory = { ...memory, previousChecks: carried.iterations.at(-1)?.checks ?? [] };
        if (!stop && gated && config.baseline !== false && !carried) {
            const gates = await runBaseline(env, memory);
            const baseline = gates.baseline;
            memory = gates.memory;
            status.baseline = baseline;
            record.appendBaseline(baseline);
            record.writeStatus(status);
            emit({ type: 'baseline_finished', baseline });
            // Interrupted, the baseline's enforcement is noted here; the check before iteration 1 stops the loop.
            if (baseline.verdict === 'interrupted' && guard.trip)
                noteEnforcement(guard.trip);
            else if (baseline.verdict === 'green' && config.skipIfGreen)
                stop = {
                    reason: 'already_green',
                    detail: 'every check passed before any agent ran (skip-if-green), so no agent ran'
                };
        }
        for (let iteration = (carried?.iterations.length ?? 0) + 1; !stop; iteration++) {
            stop = decideStop(undefined, budgets(iteration - 1));
            if (stop)
                break;
            status.inFlight = iteration;
            // Only iterations that last get an "in flight" status.json: fast loops skip the extra write.
            const cancelInFlight = clock.setTimeout(() => record.writeStatus(status), IN_FLIGHT_STATUS_DELAY_MS);
            emit({
                type: 'iteration_started',
                iteration,
                ...(config.maxIterations !== undefined ? { maxIterations: config.maxIterations } : {})
            });
            const outcome = await runIteration(env, memory, iteration).finally(cancelInFlight);
            memory = { ...outcome.memory, history: [...outcome.memory.history, outcome.record] };
            const trip = guard.trip;
            if (outcome.interrupted && trip)
                noteEnforcement(trip);
            status.iterations.push(outcome.record);
            if (outcome.record.verification)
                status.verification = outcome.record.verification;
            warnRefused();
            delete status.inFlight;
            updateCost(status, meter);
            const agent = outcome.record.agent;
            const limit = agent?.failure?.kind === 'usage_limit' && !agent.killedBy ? agent.failure : undefined;
            const limitWait = limit ? usageLimitWait(limit, clock.now(), deadline) : undefined;
            // Behind the proxy the cap fails closed: what it cannot read is charged its worst case, and said.
            for (const line of proxied?.warnings() ?? [])
                warn(line);
            if (!proxied && agent?.usage.cost_source === 'unknown' && config.maxCostUsd !== undefined) {
                status.cost.enforced = false;
                warn(`the agent's cost is unknown (preset ${agent.preset} saw no cost in its output): ` +
                    `the $${config.maxCostUsd} budget cannot be enforced; time and iteration limits still apply`);
            }
            record.appendIteration(outcome.record);
            record.writeStatus(status);
            emit({ type: 'iteration_finished', record: outcome.record });
            // An iteration lost to a usage limit says nothing about the agent or the work: the breaker skips it.
            const end = {
                iteration,
                record: outcome.record,
                success: outcome.success,
                interrupted: outcome.interrupted,
                ...(outcome.crash !== undefined ? { crash: outcome.crash } : {}),
                ...(limitWait && 'stop' in limitWait ? { limitStop: limitWait.stop } : {}),
                limitWaited: limitWait !== undefined && 'waitMs' in limitWait
            };
            const signals = limitWait || outcome.success ? undefined : breakerSignals(outcome.record);
            const tripped = signals ? breaker.record(signals) : undefined;
            stop = decideStop(end, budgets(iteration), tripped);
            if (outcome.crash !== undefined)
                status.error = outcome.crash;
            if (stop?.reason === 'circuit_open' && tripped)
                status.breaker = tripped;
            if (stop)
                break;
            if (limitWait && 'waitMs' in limitWait) {
                warn(limitWait.detail);
                emit({ type: 'waiting', seconds: Math.round(limitWait.waitMs / 1000) });
                await guard.sleep(limitWait.waitMs, ports.finishSignal);
            }
            else if (config.delaySeconds > 0) {
                emit({ type: 'waiting', seconds: config.delaySeconds });
                await guard.sleep(config.delaySeconds * 1000, ports.finishSignal);
            }
        }
    }
    catch (error) {
        // A bug or an environment failure (git broke, the disk is full): finish the record all the same.
        status.error = error.message;
        stop = { reason: 'agent_error', detail: `Run crashed: ${error.message}` };
    }
    finally {
        guard.dispose();
        stopWatchingCost();
        await workspace.dispose().catch(() => undefined);
        for (const problem of (await egress?.remove()) ?? [])
            warn(`the egress rules were not all removed: ${problem}`);
        await refusals?.close();
        if (proxied) {
            await proxied.close();
            status.modelProxy = {
                upstream: proxied.upstream,
                requests: proxied.proxy.requests.length,
                refused: [...proxied.proxy.refused],
                ...(proxied.proxy.refusedUnnamed > 0 ? { refusedUnnamed: proxied.proxy.refusedUnnamed } : {}),
                ...(proxied.proxy.refusedRequests.length > 0
                    ? { refusedRequests: [...proxied.proxy.refusedRequests] }
                    : {})
            };
            for (const line of proxied.warnings())
                warn(line);
            for (const target of proxied.proxy.refused.slice(0, REFUSALS_WARNED))
                warn(refusalWarning(network, target, config.modelProxy?.allowedHosts ?? []));
            const more = [
                ...(proxied.proxy.refused.length > REFUSALS_WARNED
                    ? [
                        `${proxied.proxy.refused.length - REFUSALS_WARNED} more destination(s), named in status.json (modelProxy.refused)`
                    ]
                    : []),
                ...(proxied.proxy.refusedUnnamed > 0
                    ? [
                        `${proxied.proxy.refusedUnnamed} connection(s) or datagram(s) counted only, not named (past the first ${MOST_REFUSALS_NAMED}, or more at once than the lookups kept up with) (modelProxy.refusedUnnamed)`
                    ]
                    : [])
            ];
            if (more.length > 0)
                warn(`agent-network ${network} refused the agent ${more.join(' and ')}`);
        }
    }
    const finishedAt = clock.now();
    const final = stop ?? { reason: 'agent_error', detail: 'the loop ended without a stop reason' };
    const result = {
        ...status,
        state: 'finished',
        stopReason: final.reason,
        stopDetail: final.detail,
        finishedAt: run_loop_iso(finishedAt),
        durationMs: Math.round(finishedAt - startedAt),
        success: SUCCESS.includes(final.reason)
    };
    delete result.inFlight;
    updateCost(result, meter);
    if (carry) {
        const own = {
            run: carry.run,
            iterations: result.iterations.length - (carried?.iterations.length ?? 0),
            costUsd: Math.max(0, result.cost.totalUsd - carriedUsd),
            durationMs: result.durationMs,
            stopReason: result.stopReason
        };
        result.chain = { jobs: [...carry.jobs, own] };
    }
    await record.finish(result);
    emit({ type: 'stop', reason: result.stopReason, detail: result.stopDetail, result });
    return result;
}
/** `verifyOnly`: the gates on a clean checkout of the commit, and the stop that verdict makes. */
async function verifyAlone(env, memory, status, { commit, base }, budgets) {
    const { verification, failures } = await verifyCommit(env, 1, commit, base, env.verifyPorts, memory);
    status.verification = verification;
    env.record.writeStatus(status);
    const short = commit.slice(0, 12);
    if (verification.verdict === 'passed')
        return { reason: 'all_checks_passed', detail: `every gate passed on a clean checkout of ${short}` };
    if (verification.verdict === 'interrupted')
        return (decideStop(undefined, budgets()) ?? {
            reason: 'cancelled',
            detail: `the clean checkout of ${short} was interrupted`
        });
    return {
        reason: 'verify_failed',
        detail: `on a clean checkout of ${short}, ${failures.map(f => f.name).join(', ')} failed${missingSetupHint(verification)}`
    };
}
/**
 * What an iteration tells the breaker; undefined for one it skips: a crash, or a usage limit (which says
 * nothing about the agent or the work). The loop and a continued loop's replay read records the same way.
 */
function breakerSignals(record) {
    const agent = record.agent;
    if (record.error !== undefined)
        return undefined;
    if (agent?.failure?.kind === 'usage_limit' && !agent.killedBy)
        return undefined;
    return {
        progressed: record.progressed,
        failureFingerprint: record.failureFingerprint,
        agentFailed: agent !== undefined && !agent.success,
        deniedTools: agent?.permissionDenials?.map(denial => denial.tool) ?? []
    };
}
const SOURCE_RANK = { metered: 0, reported: 1, estimated: 2, unknown: 3 };
/** The meter with an earlier job's dollars already spent: the caps and the totals count the whole chain. */
function withCarriedCost(meter, usd, source) {
    if (usd <= 0 && source === undefined)
        return meter;
    return {
        spentUsd: () => usd + meter.spentUsd(),
        runningUsd: () => meter.runningUsd(),
        source: () => {
            const own = meter.source();
            return source !== undefined && SOURCE_RANK[source] > SOURCE_RANK[own] ? source : own;
        },
        beginRun: () => meter.beginRun(),
        observe: usage => meter.observe(usage),
        endRun: final => meter.endRun(final),
        onChange: listener => meter.onChange(listener),
        ...(meter.budgetRefusal ? { budgetRefusal: () => meter.budgetRefusal?.() } : {})
    };
}
function updateCost(status, meter) {
    status.cost.totalUsd = meter.spentUsd();
    status.cost.source = status.iterations.some(it => it.agent) ? meter.source() : 'unknown';
    const tokens = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
    for (const it of status.iterations) {
        if (!it.agent)
            continue;
        tokens.input += it.agent.usage.input;
        tokens.output += it.agent.usage.output;
        tokens.cache_read += it.agent.usage.cache_read;
        tokens.cache_write += it.agent.usage.cache_write;
    }
    status.cost.tokens = tokens;
}

;// CONCATENATED MODULE: ./src/loop/stop-words.ts
const STOP_WORDS = {
    all_checks_passed: { icon: '✅', headline: 'Every gate passed', did: () => 'passed' },
    completed: { icon: '✅', headline: 'Done (the agent said so; no gates)', did: () => 'finished' },
    max_iterations: {
        icon: '❌',
        headline: 'Used every iteration without passing the gates',
        did: n => `used all ${n} without passing its gates`,
        failure: 'The gates never passed'
    },
    budget_exhausted: {
        icon: '💸',
        headline: 'Out of budget',
        did: n => `ran out of budget after ${n}`,
        failure: 'The cost budget ran out before the gates passed'
    },
    timeout: {
        icon: '⏱️',
        headline: 'Out of time',
        did: n => `ran out of time after ${n}`,
        failure: 'The time budget ran out before the gates passed'
    },
    circuit_open: {
        icon: '❌',
        headline: 'Stopped: no progress',
        did: n => `stopped after ${n} because it was not making progress`,
        failure: 'The loop stopped making progress before the gates passed'
    },
    agent_error: {
        icon: '💥',
        headline: 'Stopped on an error',
        did: n => `stopped after ${n} on an error`,
        failure: 'The loop stopped on an error'
    },
    cancelled: { icon: '⏹️', headline: 'Cancelled', did: n => `was cancelled after ${n}` },
    verify_failed: {
        icon: '❌',
        headline: 'The gates failed on a clean checkout',
        did: n => `passed its gates in its own tree but not on a clean checkout of its commit after ${n}`,
        failure: "The gates passed in the loop's tree but failed on a clean checkout of the commit to deliver"
    },
    already_green: {
        icon: '✅',
        headline: 'Nothing to do: every gate already passed',
        did: () => 'found every gate passing'
    }
};

;// CONCATENATED MODULE: ./src/loop/preview.ts
// The prompt an iteration would pipe to the agent, without running the agent (`ralph-action prompt`):
// the commands run for real, as in the loop, and the prompt is assembled as a first pass of the loop sees it.








/**
 * Runs the ralph's commands and answers the prompt of iteration `iteration` (no history: no failures,
 * no diff, no progress yet). Throws RalphError with the reference's "Run crashed" reason when a command
 * cannot run, or when RALPH.md cannot be read.
 */
async function previewPrompt(config, iteration = 1, ports = {}) {
    const logs = (0,external_node_fs_namespaceObject.mkdtempSync)(external_node_path_default().join((0,external_node_os_namespaceObject.tmpdir)(), 'ralph-preview-'));
    try {
        const commands = await runCommands(config.ralph.commands, {
            ralphDir: config.ralph.dir,
            workTree: config.projectRoot,
            userArgs: config.userArgs,
            iterationDir: logs,
            relative: file => external_node_path_default().relative(logs, file),
            outputCap: config.outputCap,
            killGraceMs: config.killGraceMs ?? defaults_DEFAULT_KILL_GRACE_MS,
            signal: ports.signal ?? new AbortController().signal,
            runProcess: ports.runProcess ?? runProcess
        });
        if (commands.crash)
            throw new RalphError(commands.crash);
        if (commands.interrupted)
            throw new RalphError('Cancelled while the commands ran.');
        const state = { config, ralph: config.ralph, workTree: config.projectRoot, history: [] };
        return assemble(state, iteration, commands.outputs).prompt;
    }
    finally {
        (0,external_node_fs_namespaceObject.rmSync)(logs, { recursive: true, force: true });
    }
}

;// CONCATENATED MODULE: ./src/loop/preflight.ts
// Say no before spending: every program a loop will start (the agent, the ralph's commands, every gate) is
// looked for before the first agent run. A missing one would otherwise show only after the agent had run
// (a gate's "command not found", iteration after iteration, until the circuit opened).

/** One line for each program the loop would start that cannot be found; [] when every one is there. */
function missingPrograms(config, searchPath = process.env.PATH) {
    const { ralph } = config;
    const dirs = { ralphDir: ralph.dir, projectRoot: config.projectRoot };
    return [
        missingAgentProgram(ralph.agentArgv, config.projectRoot, searchPath),
        ...ralph.commands.map(command => missingCommandProgram(command, config.userArgs, dirs, searchPath)),
        ...config.checks.map(check => missingGateProgram(check, config.projectRoot, searchPath))
    ].filter((problem) => problem !== undefined);
}

;// CONCATENATED MODULE: ./src/loop/task.ts
// Ralph-less runs (`ralph-action loop "TASK" --agent CMD --check CMD …`): a synthetic ralph whose body is
// the task. Pass the task (or the spec file's content) as LoopConfig.promptText.

/** A validated Ralph for a task given on the command line; throws RalphError for a bad agent line. */
function taskRalph(options) {
    if (!options.agent.trim())
        throw new RalphError('Missing or empty agent command: pass --agent CMD.');
    let agentArgv;
    try {
        agentArgv = shlex_shlexSplit(options.agent);
    }
    catch (error) {
        throw new RalphError(`Malformed agent command ${JSON.stringify(options.agent)}: ${error.message}`);
    }
    const ralph = {
        file: '',
        dir: options.dir,
        name: options.name ?? 'loop',
        agent: options.agent,
        agentArgv,
        commands: [],
        args: [],
        credit: options.credit ?? false,
        checks: options.checks ?? []
    };
    if (options.completionTag !== undefined)
        ralph.completionTag = options.completionTag;
    if (options.guardrails !== undefined)
        ralph.guardrails = options.guardrails;
    return ralph;
}

;// CONCATENATED MODULE: ./src/loop/output-room.ts
/**
 * A LoopPorts.outputRoom for `stream`: a promise while the stream holds more than its buffer (its reader is
 * behind), settled once it drains, closes or fails (a reader that is gone must not hold the agent forever).
 */
function outputRoomOf(stream) {
    let waiting;
    return () => {
        if (waiting)
            return waiting;
        if (!stream.writableNeedDrain || stream.destroyed)
            return undefined;
        waiting = new Promise(resolve => {
            const done = () => {
                stream.off('drain', done);
                stream.off('close', done);
                stream.off('error', done);
                waiting = undefined;
                resolve();
            };
            stream.on('drain', done);
            stream.on('close', done);
            stream.on('error', done);
        });
        return waiting;
    };
}

;// CONCATENATED MODULE: ./src/loop/index.ts
// The loop engine's public surface: runLoop and the pieces front-ends, the benchmark and tests use.
























;// CONCATENATED MODULE: ./src/cli/argv.ts
// Command-line parsing with the reference CLI's (click's) semantics, so `ralph-action run` is a drop-in for
// `ralph run`: options may stand anywhere (interspersed), unknown options are kept as user args, and the
// first `--` is consumed.


class UsageError extends Error {
    constructor(message) {
        super(message);
        this.name = 'UsageError';
    }
}
function convert(spec, name, raw) {
    if (spec.kind === 'int') {
        // click accepts surrounding whitespace and a sign, nothing else.
        if (!/^\s*[+-]?\d+\s*$/.test(raw))
            throw new UsageError(`Invalid value for '${name}': '${raw}' is not a valid integer.`);
        return Number.parseInt(raw, 10);
    }
    if (spec.kind === 'duration') {
        const seconds = duration_parseDuration(raw, 's');
        if (seconds === undefined)
            throw new UsageError(`Invalid value for '${name}': '${raw}' is not a positive duration: give seconds (90) or a number with a unit (90s, 2m, 1h).`);
        return seconds;
    }
    if (spec.kind === 'float') {
        // Python's float(): decimal or exponent notation, inf, infinity, nan; surrounding whitespace allowed.
        const text = raw.trim();
        const match = /^([+-]?)(?:(inf|infinity)|(nan)|((?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?))$/i.exec(text);
        if (!match)
            throw new UsageError(`Invalid value for '${name}': '${raw}' is not a valid float.`);
        if (match[3])
            return Number.NaN;
        const sign = match[1] === '-' ? -1 : 1;
        return match[2] ? sign * Number.POSITIVE_INFINITY : Number(text);
    }
    return raw;
}
/** Parses `tokens` against `specs`; throws UsageError with click's wording for a bad option value. */
function parseArgs(tokens, specs) {
    const byName = new Map();
    for (const spec of specs)
        for (const name of spec.names)
            byName.set(name, spec);
    const options = {};
    const rest = [];
    const typed = {};
    const take = (spec, name, value) => {
        const converted = convert(spec, name, value);
        typed[spec.key] = name;
        if (spec.kind === 'strings')
            options[spec.key] = [...(options[spec.key] ?? []), value];
        else
            options[spec.key] = converted;
    };
    for (let i = 0; i < tokens.length; i++) {
        const token = tokens[i];
        if (token === '--') {
            rest.push(...tokens.slice(i + 1));
            break;
        }
        if (token.startsWith('--')) {
            const eq = token.indexOf('=');
            const name = eq === -1 ? token : token.slice(0, eq);
            const spec = byName.get(name);
            if (!spec) {
                rest.push(token);
                continue;
            }
            if (spec.kind === 'flag') {
                if (eq !== -1)
                    throw new UsageError(`Option '${name}' does not take a value.`);
                options[spec.key] = true;
                typed[spec.key] = name;
                continue;
            }
            if (eq !== -1)
                take(spec, name, token.slice(eq + 1));
            else if (i + 1 < tokens.length)
                take(spec, name, tokens[++i]);
            else
                throw new UsageError(`Option '${name}' requires an argument.`);
            continue;
        }
        if (token.startsWith('-') && token.length > 1) {
            // Short options, possibly combined (`-sn3`); an unknown one keeps the whole token as a user arg.
            if (!byName.has(`-${token[1]}`)) {
                rest.push(token);
                continue;
            }
            for (let j = 1; j < token.length; j++) {
                const name = `-${token[j]}`;
                const spec = byName.get(name);
                if (!spec) {
                    rest.push(`-${token.slice(j)}`);
                    break;
                }
                if (spec.kind === 'flag') {
                    options[spec.key] = true;
                    typed[spec.key] = name;
                    continue;
                }
                const attached = token.slice(j + 1);
                if (attached !== '')
                    take(spec, name, attached);
                else if (i + 1 < tokens.length)
                    take(spec, name, tokens[++i]);
                else
                    throw new UsageError(`Option '${name}' requires an argument.`);
                break;
            }
            continue;
        }
        rest.push(token);
    }
    return { options, rest, typed };
}
/** The options block of a help text. */
function formatOptions(specs) {
    const rows = specs.map(spec => {
        const value = spec.kind === 'flag' ? '' : ` ${spec.metavar ?? spec.kind.toUpperCase().replace('STRINGS', 'TEXT')}`;
        return [`${spec.names.join(', ')}${value}`, spec.help];
    });
    const width = Math.max(...rows.map(([left]) => left.length)) + 2;
    return rows.map(([left, help]) => `  ${left.padEnd(width)}${help}`).join('\n');
}
/** The long option `token` (`--max-iteration`, `--max-iteration=2`) was probably meant to be, if one is close. */
function closeOption(token, specs) {
    return closest(token.split('=')[0], specs.flatMap(spec => spec.names.filter(n => n.startsWith('--'))));
}

;// CONCATENATED MODULE: ./src/cli/options.ts
// The options `run` and `loop` share: the reference runtime's, then ours (gates, budgets, record).






/** `ralph run`'s own options, with its names and meanings. */
const REFERENCE_OPTIONS = [
    {
        key: 'n',
        names: ['-n', '--max-iterations'],
        kind: 'int',
        metavar: 'N',
        help: 'Max number of iterations. Infinite if not set.'
    },
    {
        key: 'stopOnError',
        names: ['--stop-on-error', '-s'],
        kind: 'flag',
        help: 'Stop if the agent exits non-zero or times out.'
    },
    {
        key: 'delay',
        names: ['--delay', '-d'],
        kind: 'float',
        metavar: 'S',
        help: 'Seconds to wait between iterations.'
    },
    {
        key: 'logDir',
        names: ['--log-dir', '-l'],
        kind: 'string',
        metavar: 'DIR',
        help: "Also save each iteration's agent output to DIR (ralphify's log files)."
    },
    {
        key: 'timeout',
        names: ['--timeout', '-t'],
        kind: 'float',
        metavar: 'S',
        help: 'Max seconds per agent run. Kill the agent if exceeded.'
    }
];
/** Our additions: the reference runtime has none of these. */
const LOOP_OPTIONS = [
    {
        key: 'check',
        names: ['--check'],
        kind: 'strings',
        metavar: 'CMD',
        help: 'A gate, run with bash after each iteration; repeatable. All must exit 0.'
    },
    {
        key: 'noBaseline',
        names: ['--no-baseline'],
        kind: 'flag',
        help: "Don't run the checks before iteration 1 (by default their failures fill its prompt)."
    },
    {
        key: 'skipIfGreen',
        names: ['--skip-if-green'],
        kind: 'flag',
        help: 'Stop at once (already_green, exit 0, no agent) when every check passes before iteration 1.'
    },
    {
        key: 'parallelChecks',
        names: ['--parallel-checks'],
        kind: 'flag',
        help: "Run the checks together (only when they don't share a build folder)."
    },
    {
        key: 'maxCost',
        names: ['--max-cost'],
        kind: 'float',
        metavar: 'USD',
        help: 'Stop (killing the agent) when its cost reaches USD.'
    },
    {
        key: 'maxTime',
        names: ['--max-time'],
        kind: 'duration',
        metavar: 'TIME',
        help: 'Stop (killing the agent) after TIME in all, checks included: seconds, or 90s, 2m, 1h.'
    },
    {
        key: 'completionTag',
        names: ['--completion-tag'],
        kind: 'string',
        metavar: 'TAG',
        help: "The agent's done signal <promise>TAG</promise> (default COMPLETE; '' = gates alone decide)."
    },
    {
        key: 'commit',
        names: ['--commit'],
        kind: 'flag',
        help: 'Commit what the agent left after each iteration.'
    },
    {
        key: 'maxFileSize',
        names: ['--max-file-size'],
        kind: 'string',
        metavar: 'SIZE',
        help: 'With --commit, leave out a file larger than SIZE (50 MB by default; 500KB, 1GB), with a warning.'
    },
    {
        key: 'recordDir',
        names: ['--record-dir'],
        kind: 'string',
        metavar: 'DIR',
        help: 'Where progress.md, status.json and logs/ go (default: under the system temp dir).'
    },
    {
        key: 'outputCap',
        names: ['--output-cap'],
        kind: 'int',
        metavar: 'BYTES',
        help: "Most bytes of one command's output put in the prompt; the middle is cut (default 1048576)."
    },
    {
        key: 'allowEnv',
        names: ['--allow-env'],
        kind: 'strings',
        metavar: 'NAME',
        help: 'Give the agent a credential variable it would not get (e.g. GH_TOKEN, or PREFIX*); repeatable.'
    },
    {
        key: 'maxTurns',
        names: ['--max-turns'],
        kind: 'int',
        metavar: 'N',
        help: "Cap the agent's turns per run (Claude Code's --max-turns)."
    },
    {
        key: 'costPattern',
        names: ['--cost-pattern'],
        kind: 'string',
        metavar: 'REGEX',
        help: 'How a generic agent reports cost: a regex with named groups usd, input, output… tried on each line.'
    },
    {
        key: 'noPresets',
        names: ['--no-presets'],
        kind: 'flag',
        help: 'Run the agent exactly as written (no preset flags).'
    },
    {
        key: 'modelProxy',
        names: ['--model-proxy'],
        kind: 'flag',
        help: 'Run the agent behind a loopback model proxy that holds its API key and meters every token.'
    },
    {
        key: 'modelUpstream',
        names: ['--model-upstream'],
        kind: 'string',
        metavar: 'URL',
        help: "Where the model proxy forwards (a gateway); default: the CLI's base-URL variable, else the vendor's API."
    },
    {
        key: 'modelCa',
        names: ['--model-ca'],
        kind: 'string',
        metavar: 'FILE',
        help: "Certificate authorities (PEM) the model proxy trusts for the upstream, besides the system's."
    },
    {
        key: 'agentNetwork',
        names: ['--agent-network'],
        kind: 'string',
        metavar: 'MODE',
        help: 'What the agent may connect to behind the proxy: model-only (default), allow-list or open.'
    },
    {
        key: 'allowedHosts',
        names: ['--allowed-hosts'],
        kind: 'strings',
        metavar: 'HOST',
        help: "A host the agent may reach through the proxy's CONNECT (e.g. registry.npmjs.org); repeatable."
    },
    {
        key: 'isolation',
        names: ['--isolation'],
        kind: 'string',
        metavar: 'MODE',
        help: 'user: run the agent, commands and checks as their own user (needs root or passwordless sudo); none (default): as you.'
    },
    {
        key: 'agentUser',
        names: ['--agent-user'],
        kind: 'string',
        metavar: 'NAME',
        help: 'The user --isolation user runs them as (created on first use; default ralph-agent).'
    },
    {
        key: 'agentMaxProcesses',
        names: ['--agent-max-processes'],
        kind: 'int',
        metavar: 'N',
        help: 'With --isolation user, the most processes (threads count) that user may have at once (default 4096).'
    }
];
const options_positive = (v) => Number.isFinite(v) && v > 0;
/**
 * Checks the values with the reference's messages, cheap checks before any file is read. A bad value is a
 * mistake on the command line like any other: a usage error (exit 2), named as it was typed.
 */
function loopSettings(options, typed = {}) {
    const name = (key, fallback) => typed[key] ?? fallback;
    const n = options.n;
    const delay = options.delay ?? 0;
    const timeout = options.timeout;
    if (n !== undefined && n < 1)
        throw new UsageError(`'${name('n', '-n')}' must be a positive integer, got ${n}.`);
    if (!Number.isFinite(delay) || delay < 0)
        throw new UsageError(`'--delay' must be non-negative, got ${pyFloatRepr(delay)}.`);
    if (timeout !== undefined && !options_positive(timeout))
        throw new UsageError(`'--timeout' must be a positive number, got ${pyFloatRepr(timeout)}.`);
    const maxCost = options.maxCost;
    if (maxCost !== undefined && !(Number.isFinite(maxCost) && maxCost >= 0))
        throw new UsageError(`'--max-cost' must be a non-negative number of dollars, got ${pyFloatRepr(maxCost)}.`);
    const maxTime = options.maxTime;
    const maxFileSize = options.maxFileSize;
    const maxFileBytes = maxFileSize === undefined ? undefined : parseFileSize(maxFileSize);
    if (maxFileSize !== undefined && maxFileBytes === undefined)
        throw new UsageError(`'--max-file-size' must be a size like 50MB, 500KB or 1GB (a bare number is megabytes), got '${maxFileSize}'.`);
    const outputCap = options.outputCap;
    if (outputCap !== undefined && outputCap < 1024)
        throw new UsageError(`'--output-cap' must be at least 1024 bytes, got ${outputCap}.`);
    const maxTurns = options.maxTurns;
    if (maxTurns !== undefined && maxTurns < 1)
        throw new UsageError(`'--max-turns' must be a positive integer, got ${maxTurns}.`);
    const costPattern = options.costPattern;
    if (costPattern !== undefined) {
        try {
            new RegExp(costPattern);
        }
        catch (error) {
            throw new UsageError(`'--cost-pattern' is not a valid regular expression: ${error.message}`);
        }
    }
    let modelProxy;
    try {
        modelProxy = modelProxySettings({
            on: options.modelProxy === true,
            upstream: options.modelUpstream,
            caFile: options.modelCa,
            allowedHosts: options.allowedHosts ?? [],
            network: options.agentNetwork
        });
    }
    catch (error) {
        if (error instanceof ModelProxyError)
            throw new UsageError(error.message.replace(/^The setting '([^']+)'/, "'--$1'"));
        throw error;
    }
    const isolation = options.isolation ?? 'none';
    if (isolation !== 'user' && isolation !== 'none')
        throw new UsageError(`'--isolation' must be user or none, got '${isolation}'.`);
    const agentMaxProcesses = options.agentMaxProcesses;
    if (agentMaxProcesses !== undefined && agentMaxProcesses < MIN_AGENT_MAX_PROCESSES)
        throw new UsageError(`'--agent-max-processes' must be at least ${MIN_AGENT_MAX_PROCESSES} (threads count, and a node program alone has about ten), got ${agentMaxProcesses}.`);
    return {
        modelProxy,
        isolation,
        ...(options.agentUser !== undefined ? { agentUser: options.agentUser } : {}),
        ...(agentMaxProcesses !== undefined ? { agentMaxProcesses } : {}),
        maxIterations: n,
        stopOnError: options.stopOnError === true,
        delaySeconds: delay,
        agentTimeoutSeconds: timeout,
        logDir: options.logDir,
        checks: options.check ?? [],
        baseline: options.noBaseline !== true,
        skipIfGreen: options.skipIfGreen === true,
        parallelChecks: options.parallelChecks === true,
        maxCostUsd: maxCost,
        maxTimeSeconds: maxTime,
        completionTag: options.completionTag,
        commit: options.commit === true,
        maxFileBytes,
        recordDir: options.recordDir,
        outputCap,
        presets: options.noPresets !== true,
        allowEnv: options.allowEnv ?? [],
        maxTurns,
        costPattern
    };
}
/**
 * The engine's settings that the options both loop commands share carry: budgets, the agent's, the gates'
 * (a ralph's `checks_parallel:` unless given) and the record's. Paths are resolved against `cwd`.
 */
function engineSettings(settings, cwd) {
    return {
        // Only what was given: these are spread over loopConfig's defaults.
        ...(settings.maxIterations !== undefined ? { maxIterations: settings.maxIterations } : {}),
        stopOnError: settings.stopOnError,
        delaySeconds: settings.delaySeconds,
        ...(settings.agentTimeoutSeconds !== undefined
            ? { agentTimeoutSeconds: settings.agentTimeoutSeconds }
            : {}),
        ...(settings.maxTimeSeconds !== undefined ? { maxTimeSeconds: settings.maxTimeSeconds } : {}),
        ...(settings.maxCostUsd !== undefined ? { maxCostUsd: settings.maxCostUsd } : {}),
        ...(settings.maxFileBytes !== undefined ? { maxFileBytes: settings.maxFileBytes } : {}),
        baseline: settings.baseline,
        skipIfGreen: settings.skipIfGreen,
        ...(settings.parallelChecks ? { parallelChecks: true } : {}),
        ...(settings.modelProxy ? { modelProxy: settings.modelProxy } : {}),
        ...(settings.allowEnv.length > 0 ? { agentEnv: { allow: settings.allowEnv } } : {}),
        ...(settings.maxTurns !== undefined ? { agentMaxTurns: settings.maxTurns } : {}),
        ...(settings.costPattern !== undefined ? { agentCost: { pattern: settings.costPattern } } : {}),
        ...(settings.recordDir ? { recordDir: external_node_path_default().resolve(cwd, settings.recordDir) } : {}),
        ...(settings.outputCap ? { outputCap: settings.outputCap } : {})
    };
}

;// CONCATENATED MODULE: ./src/cli/console.ts
// Renders the loop's events as the reference runtime's console does (plain text, no colour), plus our gates,
// cost and stop reason.



const RULE = '──────────────────────';
/** Lines of a failing check's output shown under it (all of it is in the record). */
const FAILING_CHECK_LINES = 5;
const console_plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const FAILURE_LABEL = {
    api_error: 'API error',
    usage_limit: 'usage limit',
    max_turns: 'turn limit',
    budget: "the agent's own budget cap",
    input_error: 'input refused',
    auth_error: 'authentication failed',
    error: 'error'
};
const console_seconds = (ms) => formatDuration(ms / 1000);
function verdictLine(record, tag) {
    const n = record.iteration;
    const took = console_seconds(record.durationMs);
    const agent = record.agent;
    switch (record.verdict) {
        case 'passed':
            return `✓ Iteration ${n} passed every check (${took})`;
        case 'completed':
            return `✓ Iteration ${n} completed: the agent said it is done (${took})`;
        case 'ran':
            return `✓ Iteration ${n} completed (${took})`;
        case 'checks_failed':
            return `✗ Iteration ${n} failed its checks (${took})`;
        case 'checks_passed_no_tag':
            return `◐ Iteration ${n}: the checks pass; the agent has not given the completion tag <promise>${tag}</promise> (${took})`;
        case 'agent_timed_out':
            return `⏱ Iteration ${n} timed out after ${took}`;
        case 'agent_failed':
            return agent?.isError && agent.exitCode === 0
                ? `✗ Iteration ${n} failed: the agent reported an error (${took})`
                : `✗ Iteration ${n} failed with exit code ${agent?.exitCode ?? agent?.signal ?? '?'} (${took})`;
        case 'interrupted':
            return `■ Iteration ${n} interrupted (${took})`;
        case 'crashed':
            return `✗ Iteration ${n} crashed (${took})`;
    }
}
/** Why a check failed, and the last lines it printed (bash's "command not found" among them). */
function console_checkLines(check) {
    const how = check.passed ? '' : check.timedOut ? ', timed out' : `, ${ended(check)}`;
    const head = `  ${check.passed ? '✓' : '✗'} check ${check.name} (${console_seconds(check.durationMs)}${how})\n`;
    if (check.passed)
        return head;
    const tail = check.tail
        .split('\n')
        .filter(line => line.trim() !== '')
        .slice(-FAILING_CHECK_LINES);
    return head + tail.map(line => `      ${line}\n`).join('');
}
/** "2 iterations — 1 passed, 1 failed": what each iteration came to, in words. */
function tallyLine(iterations) {
    const count = (verdicts) => iterations.filter(it => verdicts.includes(it.verdict)).length;
    const parts = [
        [count(['passed', 'completed']), 'passed'],
        [count(['ran']), 'ran'],
        [count(['checks_passed_no_tag']), 'passed the checks without the completion tag'],
        [count(['checks_failed', 'agent_failed', 'crashed']), 'failed'],
        [count(['agent_timed_out']), 'timed out'],
        [count(['interrupted']), 'interrupted']
    ];
    const said = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
    return `${console_plural(iterations.length, 'iteration')}${said.length > 0 ? ` — ${said.join(', ')}` : ''}`;
}
/** A listener for runLoop's events that prints a readable console log through `out`. */
function consoleRenderer(options) {
    const { out } = options;
    const tag = options.completionTag ?? 'COMPLETE';
    let toldChecksAlone = false;
    const live = options.showAgentOutput !== false;
    let commandsRan = 0;
    let transcript = false;
    let atLineStart = true;
    const agentText = (text) => {
        if (text === '')
            return;
        out(text);
        atLineStart = text.endsWith('\n');
    };
    const endAgentText = () => {
        if (!atLineStart)
            out('\n');
        atLineStart = true;
    };
    return event => {
        switch (event.type) {
            case 'loop_started': {
                const s = event.status;
                out(`▶ Running: ${s.ralph.name}\n`);
                const info = [];
                if (options.agentTimeoutSeconds !== undefined)
                    info.push(`timeout ${formatDuration(options.agentTimeoutSeconds)}`);
                const checks = s.budgets;
                // ralphify's run has no cap by default: say so, since the loop then runs until stopped.
                info.push(checks.maxIterations !== undefined
                    ? `max ${console_plural(checks.maxIterations, 'iteration')}`
                    : 'no iteration cap (-n N sets one)');
                if (checks.maxTimeSeconds !== undefined)
                    info.push(`max time ${formatDuration(checks.maxTimeSeconds)}`);
                if (checks.maxCostUsd !== undefined)
                    info.push(`max cost $${checks.maxCostUsd.toFixed(2)}`);
                if (info.length > 0)
                    out(`  ${info.join(' · ')}\n`);
                out(`  Record: ${s.recordDir}\n`);
                break;
            }
            case 'baseline_started':
                out(`\nBaseline ───────\n  Running the ${event.checks} check(s)${event.parallel ? ' together' : ''} before the first agent run\n`);
                break;
            case 'baseline_finished': {
                const b = event.baseline;
                const mark = b.verdict === 'green' ? '✓' : b.verdict === 'failing' ? '✗' : '■';
                const next = b.verdict === 'failing' ? ': iteration 1 gets their output' : '';
                out(`${mark} Baseline: ${baselineVerdict(b)}${next} (${console_seconds(b.durationMs)})\n`);
                break;
            }
            case 'iteration_started':
                commandsRan = 0;
                out(`\nIteration ${event.iteration} ───────\n`);
                break;
            case 'command_finished':
                commandsRan++;
                if (event.command.timedOut)
                    out(`  Command ${event.command.name} timed out\n`);
                break;
            case 'agent_started':
                if (commandsRan > 0)
                    out(`  Commands: ${commandsRan} ran\n`);
                transcript = event.transcript === true;
                break;
            case 'agent_output':
                if (live && !transcript)
                    agentText(event.chunk.toString('utf8'));
                break;
            case 'agent_transcript':
                if (live)
                    agentText(event.line.endsWith('\n') ? event.line : `${event.line}\n`);
                break;
            case 'agent_finished': {
                endAgentText();
                const agent = event.agent;
                if (agent.failure)
                    out(`  ✗ ${FAILURE_LABEL[agent.failure.kind] ?? agent.failure.kind}: ${agent.failure.message}\n`);
                if (agent.permissionDenials?.length)
                    out(`  ! permission denied: ${agent.permissionDenials.map(d => (d.detail ? `${d.tool} (${d.detail})` : d.tool)).join(', ')}\n`);
                for (const note of agent.notes)
                    out(`  ${note}\n`);
                break;
            }
            case 'check_finished':
                out(console_checkLines(event.check));
                break;
            case 'verify_finished': {
                const v = event.verification;
                const short = v.commit.slice(0, 12);
                if (v.verdict === 'passed')
                    out(`  ✓ verified on a clean checkout of ${short}\n`);
                else if (v.verdict === 'failed') {
                    out(`  ✗ on a clean checkout of ${short} (tracked files only):\n`);
                    for (const run of [...v.setup, ...v.checks].filter(r => !r.passed))
                        out(console_checkLines(run));
                }
                break;
            }
            case 'iteration_finished': {
                const r = event.record;
                out(`${verdictLine(r, tag)}\n`);
                if (r.verdict === 'checks_passed_no_tag' && !toldChecksAlone) {
                    toldChecksAlone = true;
                    out(`  To let the checks alone decide, run with --completion-tag ''.\n`);
                }
                break;
            }
            case 'waiting':
                out(`Waiting ${formatDuration(event.seconds)}...\n`);
                break;
            case 'warning':
                out(`  ! ${event.message}\n`);
                break;
            case 'cost_update':
                break;
            case 'stop': {
                const r = event.result;
                out(`\n${RULE}\n`);
                out(`Done: ${tallyLine(r.iterations)}\n`);
                // A crash's message follows on stderr ("Run crashed: …"): said once.
                out(`Stopped: ${event.reason} — ${r.error !== undefined ? 'the run crashed' : event.detail}\n`);
                out(`Cost: ${formatCost(r)} · Duration: ${console_seconds(r.durationMs)}\n`);
                out(`Record: ${r.recordDir}\n`);
                break;
            }
        }
    };
}

;// CONCATENATED MODULE: ./src/cli/isolation.ts
// `--isolation user`: the loop's processes (the agent, the ralph's commands, the checks) run as their own
// unprivileged user, with the environment minus credentials; everything of that user is killed whenever none
// of them runs, and the work tree is given back at the end. Needs root or passwordless sudo: said in one line.







/** The isolation `--isolation` asks for; undefined for `none`. Throws RalphError (one line) when impossible. */
async function isolateCli(config, settings, say = () => { }) {
    if (settings.isolation !== 'user')
        return undefined;
    if (config.worktree)
        throw new RalphError("'--isolation user' does not work with --worktree yet: run it in a checkout of its own.");
    const privilege = isolationPrivilege();
    if ('why' in privilege)
        throw new RalphError(`'--isolation user' is not possible here: ${privilege.why}.`);
    const workspace = await GitWorkspace.open(config.projectRoot);
    const workTree = workspace.root;
    await workspace.dispose();
    const program = which(config.ralph.agentArgv[0] ?? '', { cwd: config.projectRoot, path: process.env.PATH });
    const env = agentEnvironment(process.env, config.agentEnv);
    try {
        const isolated = await isolateAgent({
            ...(settings.agentUser !== undefined ? { user: settings.agentUser } : {}),
            ...(settings.agentMaxProcesses !== undefined ? { maxProcesses: settings.agentMaxProcesses } : {}),
            privilege: privilege.privilege,
            workTree,
            ...(program ? { program: external_node_path_default().resolve(config.projectRoot, program) } : {}),
            outside: [config.recordDir, (0,external_node_os_namespaceObject.homedir)()],
            // The CLI's own settings, as it would read them as the caller: copied into the agent's HOME.
            settings: agentSettings(config.ralph.agentArgv, env),
            log: say
        });
        return {
            runProcess: options => isolated.runProcess({ ...options, env: options.env ?? env }),
            agentEnvironment: isolated.environment,
            uid: isolated.user.uid,
            privilege: privilege.privilege,
            verify: { lend: dir => isolated.lend(dir) },
            release: async (warn) => {
                for (const problem of await isolated.release())
                    warn(`The isolation could not be fully undone: ${problem}`);
            }
        };
    }
    catch (error) {
        if (error instanceof IsolationError)
            throw new RalphError(`'--isolation user': ${error.message}`);
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/cli/validate-command.ts
// `ralph-action validate PATH`: every problem at once, each as `file:line:column: message`, the programs its
// agent, commands and checks start included.



async function validateCommand(args, io) {
    const { rest } = parseArgs(args, []);
    const [pathArg, ...userArgs] = rest;
    if (pathArg === undefined)
        throw new UsageError("Missing argument 'PATH'.");
    const resolved = resolve_resolveRalphPath(pathArg, { cwd: io.cwd, home: io.home });
    const { problems, warnings } = lintRalph(resolved.file, {
        cwd: io.cwd,
        env: io.env,
        userArgs,
        checkPrograms: true
    });
    const shown = external_node_path_default().relative(io.cwd, resolved.file) || resolved.file;
    for (const p of problems)
        io.stderr(validate_command_problemLine(p, io.cwd));
    for (const p of warnings)
        io.stderr(validate_command_problemLine(p, io.cwd, 'warning: '));
    if (problems.length > 0) {
        io.stderr(`${problems.length} problem${problems.length === 1 ? '' : 's'} in ${shown}.\n`);
        return 1;
    }
    io.stdout(`${shown}: OK${warnings.length > 0 ? `, with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''}\n`);
    return 0;
}
/** `file:line:column: [kind]message`, the file relative to `cwd`. */
function validate_command_problemLine(p, cwd, kind = '') {
    const where = [p.line, p.column].filter(n => n !== undefined).join(':');
    return `${external_node_path_default().relative(cwd, p.file) || p.file}${where ? `:${where}` : ''}: ${kind}${p.message}\n`;
}

;// CONCATENATED MODULE: ./src/cli/run-command.ts
// `ralph-action run PATH [options] [user args…]`: ralphify's `ralph run`, plus gates, budgets and a record.









const RUN_OPTIONS = [...REFERENCE_OPTIONS, ...LOOP_OPTIONS];
/** Gates from `--check`, named by their command, after the ralph's own. */
const cliChecks = addedChecks;
/** The exit code for a finished loop: see "Exit codes" in the README. */
function exitCodeFor(result, gated) {
    if (result.success)
        return 0;
    if (result.stopReason === 'cancelled')
        return 130;
    // A gate-less run that reached its cap ended normally, as it does under ralphify.
    if (result.stopReason === 'max_iterations' && !gated)
        return 0;
    return 3;
}
/** The reference's --log-dir files: `<NNN>_<UTC stamp>.log` with the agent's output, echoed after each iteration. */
function logDirWriter(logDir, recordDir, io) {
    return event => {
        if (event.type !== 'iteration_finished' || !event.record.agent)
            return;
        const source = external_node_path_default().join(recordDir, event.record.agent.log);
        if (!(0,external_node_fs_namespaceObject.existsSync)(source))
            return;
        const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
        const file = external_node_path_default().join(logDir, `${String(event.record.iteration).padStart(3, '0')}_${stamp}.log`);
        try {
            makeFolder(logDir);
        }
        catch (error) {
            throw new RalphError(`The log folder ${logDir} cannot be written: ${fileProblem(error)}.`);
        }
        (0,external_node_fs_namespaceObject.copyFileSync)(source, file);
        io.stdout(`  → ${file}\n`);
    };
}
/**
 * Runs a loop with the CLI's console and signal handling. Interactive: the first Ctrl+C finishes the
 * iteration, the second cancels at once. Otherwise (CI) the first SIGINT or SIGTERM cancels: the agent's
 * tree is killed and the record finished.
 */
async function runWithConsole(config, settings, io) {
    const missing = missingPrograms(config, io.env.PATH);
    if (missing.length > 0)
        throw new RalphError(missing.join('\n'));
    const cancel = new AbortController();
    const finish = new AbortController();
    const onSignal = (signal) => {
        if (signal === 'SIGINT' && io.interactive && !finish.signal.aborted) {
            finish.abort();
            io.stdout('\nFinishing current iteration… (Ctrl+C again to force stop)\n');
        }
        else
            cancel.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const render = consoleRenderer({
        out: io.stdout,
        agentTimeoutSeconds: settings.agentTimeoutSeconds,
        completionTag: config.completionTag
    });
    const logDir = settings.logDir
        ? logDirWriter(external_node_path_default().resolve(io.cwd, settings.logDir), config.recordDir, io)
        : undefined;
    if (settings.logDir)
        io.stdout(`Logging output to ${settings.logDir}/\n`);
    let isolation;
    try {
        isolation = await isolateCli(config, settings, message => io.stderr(`${message}\n`));
        // Behind the model proxy, the isolated uid is what the egress rules match.
        const egress = isolation && { agentUid: isolation.uid, agentPrivilege: isolation.privilege };
        const loopConfig = egress && config.modelProxy ? { ...config, modelProxy: { ...config.modelProxy, ...egress } } : config;
        const result = await runLoop(loopConfig, {
            signal: cancel.signal,
            finishSignal: finish.signal,
            emit: event => {
                render(event);
                logDir?.(event);
            },
            ...(isolation
                ? {
                    runProcess: isolation.runProcess,
                    agentEnvironment: isolation.agentEnvironment,
                    verify: isolation.verify
                }
                : {}),
            ...(io.stdoutRoom ? { outputRoom: io.stdoutRoom } : {})
        });
        if (result.error)
            io.stderr(`Run crashed: ${result.error}\n`);
        return exitCodeFor(result, config.checks.length > 0);
    }
    finally {
        await isolation?.release(message => io.stderr(`Warning: ${message}\n`));
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
    }
}
/**
 * `--max-iteration 3` is a typo of our own option, not an arg: run unbounded it would spend without a cap.
 * Exit 2, unless the ralph declares an arg of that name or reads one (a ralph written for ralphify may read
 * args it never declares).
 */
function refuseMistypedOptions(ralph, userArgs, read) {
    for (const name of Object.keys(ralph.argValues)) {
        if (ralph.args.includes(name) || read.includes(name))
            continue;
        const token = (userArgs.find(t => t === `--${name}` || t.startsWith(`--${name}=`)) ?? `--${name}`).split('=')[0];
        const meant = closeOption(token, RUN_OPTIONS);
        if (meant)
            throw new UsageError(`No such option: ${token} (did you mean ${meant}?). ${ralph.name} declares no arg of that name either.`);
    }
}
/**
 * The reference takes any `--name value` as a ralph arg, so a mistyped option (`--max-iteration 2`) is
 * silently an arg. Those args stay args, but one the ralph never reads is named, with the option it was
 * probably meant to be.
 */
function warnUnreadArgs(ralph, userArgs, read, io) {
    if (read === undefined)
        return;
    for (const name of Object.keys(ralph.argValues)) {
        if (read.includes(name))
            continue;
        const token = userArgs.find(t => t === `--${name}` || t.startsWith(`--${name}=`)) ?? `--${name}`;
        const meant = closeOption(token, RUN_OPTIONS);
        io.stderr(`Warning: ${token.split('=')[0]} is not an option of run, and ${ralph.name} never reads {{ args.${name} }}: it is ignored.${meant ? ` Did you mean ${meant}?` : ''}\n`);
    }
}
async function runCommand(args, io) {
    const { options, rest, typed } = parseArgs(args, RUN_OPTIONS);
    const [pathArg, ...userArgs] = rest;
    if (pathArg === undefined)
        throw new UsageError("Missing argument 'PATH'.");
    const settings = loopSettings(options, typed);
    const resolved = resolve_resolveRalphPath(pathArg, { cwd: io.cwd, home: io.home });
    if (resolved.notice)
        io.stdout(`${resolved.notice}\n`);
    const ralph = loadRalph(resolved.file, { cwd: io.cwd, env: io.env, userArgs, checkPrograms: true });
    // The args the body reads (undefined when that cannot be told), read once for both checks.
    const read = args_argsRead(ralph.file, (0,external_node_fs_namespaceObject.readFileSync)(ralph.file, 'utf8'));
    refuseMistypedOptions(ralph, userArgs, read ?? []);
    // ralphify runs such a ralph as it is, and so does run: said, not refused.
    for (const warning of ralph.warnings)
        io.stderr(validate_command_problemLine(warning, io.cwd, 'warning: '));
    warnUnreadArgs(ralph, userArgs, read, io);
    const checks = [...ralph.checks, ...cliChecks(settings.checks, ralph.checks)];
    const config = loopConfig({
        ralph,
        projectRoot: io.cwd,
        userArgs: ralph.argValues,
        ...engineSettings(settings, io.cwd),
        checks,
        completionTag: settings.completionTag ?? ralph.completionTag ?? 'COMPLETE',
        commit: settings.commit,
        presets: settings.presets && (ralph.presets ?? true),
        // `run` is ralphify's `ralph run`: the agent's argv stays the reference's (claude's stream flags only)
        // unless our own settings need more (--max-cost: codex --json, claude --max-budget-usd).
        presetFlags: 'reference'
    });
    return runWithConsole(config, settings, io);
}

;// CONCATENATED MODULE: ./src/cli/loop-command.ts
// `ralph-action loop "TASK" --agent CMD --check CMD …`: a ralph-less run; the task (and/or a spec file)
// stands in for the RALPH.md body.







const TASK_OPTIONS = [
    {
        key: 'agent',
        names: ['--agent'],
        kind: 'string',
        metavar: 'CMD',
        help: 'The agent command; it reads the prompt on stdin.'
    },
    {
        key: 'spec',
        names: ['--spec'],
        kind: 'string',
        metavar: 'FILE',
        help: 'A spec file whose content is the task (after TASK, if both).'
    },
    {
        key: 'n',
        names: ['--max-iterations', '-n'],
        kind: 'int',
        metavar: 'N',
        help: 'Max number of iterations (default 10).'
    },
    {
        key: 'worktree',
        names: ['--worktree'],
        kind: 'flag',
        help: 'Run in a new git worktree on its own branch, left in place for inspection.'
    },
    ...REFERENCE_OPTIONS.filter(o => o.key !== 'n'),
    ...LOOP_OPTIONS
];
async function loopCommand(args, io) {
    const { options, rest, typed } = parseArgs(args, TASK_OPTIONS);
    const unknown = rest.find(token => token.startsWith('-'));
    if (unknown) {
        const meant = closeOption(unknown, TASK_OPTIONS);
        throw new UsageError(`No such option: ${unknown}${meant ? ` (did you mean ${meant}?)` : ''}`);
    }
    if (rest.length > 1)
        throw new UsageError(`Got ${rest.length} tasks; quote the task as one argument.`);
    const agent = options.agent;
    if (!agent)
        throw new UsageError("Missing option '--agent'.");
    const parts = [];
    if (rest[0] !== undefined)
        parts.push(rest[0]);
    if (options.spec !== undefined) {
        const spec = external_node_path_default().resolve(io.cwd, options.spec);
        try {
            parts.push((0,external_node_fs_namespaceObject.readFileSync)(spec, 'utf8'));
        }
        catch (error) {
            throw new RalphError(`Cannot read the spec file ${spec}: ${fileProblem(error)}.`);
        }
    }
    if (parts.length === 0)
        throw new UsageError('Give the task as an argument or with --spec FILE.');
    const settings = loopSettings({ n: 10, ...options }, typed);
    const ralph = taskRalph({ agent, dir: io.cwd, checks: cliChecks(settings.checks, []) });
    const config = loopConfig({
        ralph,
        promptText: parts.join('\n\n'),
        projectRoot: io.cwd,
        ...engineSettings(settings, io.cwd),
        completionTag: settings.completionTag ?? 'COMPLETE',
        commit: settings.commit || options.worktree === true,
        presets: settings.presets,
        ...(options.worktree === true ? { worktree: {} } : {})
    });
    return runWithConsole(config, settings, io);
}

;// CONCATENATED MODULE: ./src/cli/prompt-command.ts
// `ralph-action prompt PATH [--iteration N] [user args…]`: the assembled prompt, exactly, without the agent.



const PROMPT_OPTIONS = [
    {
        key: 'iteration',
        names: ['--iteration'],
        kind: 'int',
        metavar: 'N',
        help: 'The iteration number {{ ralph.iteration }} shows (default 1).'
    },
    {
        key: 'n',
        names: ['-n'],
        kind: 'int',
        metavar: 'N',
        help: 'The max iterations {{ ralph.max_iterations }} shows.'
    }
];
async function promptCommand(args, io) {
    const { options, rest } = parseArgs(args, PROMPT_OPTIONS);
    const [pathArg, ...userArgs] = rest;
    if (pathArg === undefined)
        throw new UsageError("Missing argument 'PATH'.");
    const iteration = options.iteration ?? 1;
    if (iteration < 1)
        throw new RalphError(`'--iteration' must be a positive integer, got ${iteration}.`);
    const resolved = resolve_resolveRalphPath(pathArg, { cwd: io.cwd, home: io.home });
    const ralph = loadRalph(resolved.file, { cwd: io.cwd, env: io.env, userArgs, skipAgentLookup: true });
    const maxIterations = options.n;
    const config = loopConfig({
        ralph,
        projectRoot: io.cwd,
        userArgs: ralph.argValues,
        ...(maxIterations !== undefined ? { maxIterations } : {})
    });
    const prompt = await previewPrompt(config, iteration);
    io.stdout(prompt);
    return 0;
}

;// CONCATENATED MODULE: ./src/cli/help.ts
// Help texts, with examples. The option tables come from the same specs the parser uses.




const VERSION = '0.1.0';
const HELP = `Usage: ralph-action COMMAND [ARGS]...

Run a ralph loop: each iteration runs the ralph's commands, fills the RALPH.md prompt, pipes it to the
agent, then runs the checks (gates). A drop-in for ralphify's \`ralph run\`.

Commands:
  run PATH       Run the loop of a ralph (a folder, a RALPH.md, or an installed ralph's name).
  loop "TASK"    Run a loop without a ralph: the task is the prompt, --check commands are the gates.
  prompt PATH    Print the prompt an iteration would give the agent, without running the agent.
  validate PATH  Check a ralph and print every problem as file:line:column: message.
  scaffold [NAME]
                 Write a starter RALPH.md (into NAME/ when given).
  list           Print the project's installed ralphs (.agents/ralphs/) as JSON for a CI matrix.

Options:
  -h, --help     Show help (also after a command).
  -V, --version  Show the version.

Exit codes: 0 success; 1 a problem with a file, a program or the machine (a RALPH.md, an agent not on
PATH); 2 a mistake on the command line (an unknown command, a bad option value); 3 the loop stopped
without success; 130 cancelled.
`;
/** What ends a loop, for run's and loop's help. */
const WHAT_ENDS_THE_LOOP = (cap) => `The loop ends, successfully, when every check passes and the agent's final message ends with
<promise>COMPLETE</promise> (--completion-tag names another tag; --completion-tag '' lets the checks
alone decide); without checks, when the agent gives that tag. It stops without success at ${cap}
iterations, when --max-time or --max-cost is spent, with checks when it stops making progress (3 in a row
with no change, the same failing checks, or a failing agent), with --stop-on-error when the agent fails,
or on Ctrl+C. Every program it would start (the agent, the commands, the checks) is looked for first.`;
const COMMAND_HELP = {
    run: `Usage: ralph-action run PATH [OPTIONS] [USER ARGS]...

Run the loop. Each iteration: run commands, assemble the prompt with their output, pipe it to the agent,
run the checks.

${WHAT_ENDS_THE_LOOP('-n')}

User args fill {{ args.NAME }}: --NAME VALUE, --NAME=VALUE, or positional values for the ralph's declared
\`args:\` in order. An arg the ralph never reads is named in a warning (a mistyped option, usually).

Options:
${formatOptions(RUN_OPTIONS)}

Examples:
  ralph-action run my-ralph -n 5
  ralph-action run my-ralph --check 'npm test' --max-cost 2 --max-time 30m --commit
  ralph-action run docs-writer --focus "the CLI" -n 3
`,
    loop: `Usage: ralph-action loop "TASK" --agent CMD [--check CMD]... [OPTIONS]

Run a loop without a ralph: TASK (or --spec FILE) is the prompt body; the gates and the completion rules
are those of \`run\`.

${WHAT_ENDS_THE_LOOP('--max-iterations (default 10)')}

Options:
${formatOptions(TASK_OPTIONS)}

Examples:
  ralph-action loop "Make the failing tests pass" --agent 'claude -p --permission-mode acceptEdits' \\
    --check 'npm test' --max-iterations 5 --max-cost 3
  ralph-action loop --spec SPEC.md --agent 'codex exec -' --check 'make check' --worktree
`,
    prompt: `Usage: ralph-action prompt PATH [--iteration N] [USER ARGS]...

Run the ralph's commands and print the prompt the agent would get, byte for byte, without running it.

Options:
${formatOptions(PROMPT_OPTIONS)}

Examples:
  ralph-action prompt my-ralph
  ralph-action prompt my-ralph --iteration 3 --focus tests > prompt.md
`,
    validate: `Usage: ralph-action validate PATH

Check a ralph and print every problem at once, each as file:line:column: message. Exit 1 if any.

Example:
  ralph-action validate .agents/ralphs/bug-hunter
`,
    scaffold: `Usage: ralph-action scaffold [NAME]

Write a starter RALPH.md into NAME/ (created), or into the current folder.

Example:
  ralph-action scaffold my-ralph && ralph-action run my-ralph -n 1
`,
    list: `Usage: ralph-action list

Print the project's installed ralphs (folders under .agents/ralphs/ holding a RALPH.md) as JSON,
{"ralph": [names...]}, ready for a GitHub Actions strategy.matrix.

Example:
  ralph-action list   # {"ralph":["bug-hunter","docs"]}
`
};
function helpFor(command) {
    return COMMAND_HELP[command] ?? HELP;
}

;// CONCATENATED MODULE: ./src/ralph/installed.ts
// The ralphs a comment or a label may name: those installed in the project (`.agents/ralphs/<name>/`).
// Followed through symlinks, the folder, its RALPH.md and the guardrails file it reads must all stay inside
// the project, so a name never reaches a file elsewhere on the runner (another ralph, a secret the prompt
// would carry). What is refused is not listed either.





/** Arg names the action fills itself; a `/ralph` comment may not set them. */
const RESERVED_ARGS = (/* unused pure expression or super */ null && (['task', 'task_file']));
/**
 * The one containment rule for every ralph the action loads (a comment's or a label's name, `mode: list`, the
 * `ralph` input, a hunt): followed through links, its folder, its RALPH.md and the guardrails file it reads
 * stay inside the project. `named` is the folder as it was named (before links are followed), so a refusal
 * names the link that leaves.
 */
function ralphInProject(projectRoot, named) {
    let root;
    let dir;
    let file;
    try {
        root = (0,external_node_fs_namespaceObject.realpathSync)(projectRoot);
        dir = (0,external_node_fs_namespaceObject.realpathSync)(named);
        file = (0,external_node_fs_namespaceObject.realpathSync)(external_node_path_default().join(dir, resolve_RALPH_MARKER));
        if (!(0,external_node_fs_namespaceObject.statSync)(file).isFile())
            return { problem: `${shown(projectRoot, named)} holds no ${resolve_RALPH_MARKER}` };
    }
    catch {
        return { problem: `${shown(projectRoot, named)} holds no ${resolve_RALPH_MARKER}` };
    }
    const leaves = (what, real) => {
        const link = linkOnPath(projectRoot, what);
        return {
            problem: link
                ? `${shown(projectRoot, link)} is a link to ${real}, outside the project: a ralph's files must be the project's own`
                : `${shown(projectRoot, what)} is outside the project: a ralph's files must be the project's own`
        };
    };
    if (!isInside(dir, root))
        return leaves(named, dir);
    if (!isInside(file, root))
        return leaves(external_node_path_default().join(named, resolve_RALPH_MARKER), file);
    // Not even a link that stays inside: it could name any file of the project (a credentials file an earlier
    // step left in the workspace) as the prompt.
    const own = external_node_path_default().join(dir, resolve_RALPH_MARKER);
    if (isLink(own))
        return {
            problem: `${shown(projectRoot, external_node_path_default().join(named, resolve_RALPH_MARKER))} is a link to ${shown(projectRoot, file)}: the action follows no link of the work tree, not even one inside the project; make it a regular file`
        };
    const guardrails = guardrailsOf(file);
    if (guardrails !== undefined) {
        let real;
        try {
            real = (0,external_node_fs_namespaceObject.realpathSync)(external_node_path_default().resolve(root, guardrails));
        }
        catch {
            real = undefined; // not written yet: the loop creates it inside the work tree
        }
        if (real !== undefined && !isInside(real, root))
            return {
                problem: `${shown(projectRoot, named)} reads its guardrails from ${guardrails}, which leads outside the project (a link to ${real})`
            };
        if (real !== undefined && isLink(external_node_path_default().resolve(root, guardrails)))
            return {
                problem: `${shown(projectRoot, named)} reads its guardrails from ${guardrails}, a link to ${shown(projectRoot, real)}: the action follows no link of the work tree, not even one inside the project; make it a regular file`
            };
    }
    return { dir, file };
}
function isLink(p) {
    try {
        return (0,external_node_fs_namespaceObject.lstatSync)(p).isSymbolicLink();
    }
    catch {
        return false;
    }
}
/** A ralph's file as text, read as the action reads the tree's files at start: no link, a regular file. */
function readOwnFile(file) {
    return readRegularFile(file).toString('utf8');
}
/** The installed ralph's real folder, or why the name does not name one a trigger may run. */
function installedRalph(projectRoot, name) {
    const missing = { problem: `there is no ralph called ${'`'}${name}${'`'} in ${resolve_INSTALLED_RALPHS_DIR}/` };
    if (!NAME_RE.test(name))
        return missing;
    const named = external_node_path_default().join(projectRoot, resolve_INSTALLED_RALPHS_DIR, name);
    const contained = ralphInProject(projectRoot, named);
    if (!('problem' in contained))
        return { dir: contained.dir };
    return isFileThrough(external_node_path_default().join(named, resolve_RALPH_MARKER))
        ? { problem: `the ralph ${'`'}${name}${'`'} cannot be started: ${contained.problem}` }
        : missing;
}
/**
 * What the `ralph` input names (a folder, a RALPH.md, or an installed ralph's name), resolved as the CLI
 * resolves it, and held to ralphInProject: a ralph in the home folder is not the project's either.
 */
function inputRalph(projectRoot, input) {
    const resolved = resolveRalphPath(input, { cwd: projectRoot, home: homedir() });
    const typed = path.resolve(projectRoot, input);
    const named = resolved.resolvedFrom === 'home'
        ? resolved.dir
        : resolved.resolvedFrom === 'project'
            ? path.join(projectRoot, INSTALLED_RALPHS_DIR, input)
            : path.basename(typed) === RALPH_MARKER && isFileThrough(typed)
                ? path.dirname(typed)
                : typed;
    const contained = ralphInProject(projectRoot, named);
    return 'problem' in contained ? contained : resolved;
}
/** The project's installed ralphs that a comment or label can name (those installedRalph accepts). */
function availableRalphs(projectRoot) {
    return listInstalledRalphs(projectRoot, '/nonexistent').filter(name => 'dir' in installedRalph(projectRoot, name));
}
/**
 * The args a ralph reads: the names its frontmatter declares and every `{{ args.NAME }}` in its file (in the
 * prompt or a command), without the ones the action sets. Undefined when the file cannot be read or parsed:
 * the plan reports that problem itself.
 */
function argsOf(ralph, projectRoot) {
    try {
        const { file } = resolveRalphPath(ralph, { cwd: projectRoot, home: homedir() });
        return argsRead(file, readOwnFile(file))?.filter(name => !RESERVED_ARGS.includes(name));
    }
    catch {
        return undefined;
    }
}
/** The `{{ args.NAME }}` names in a template (a ralph-less run's prompt), without the ones the action sets. */
function argsIn(template) {
    const names = new Set();
    for (const m of template.matchAll(PLACEHOLDER_RE))
        if (m[1] === 'args')
            names.add(m[2]);
    return [...names].filter(name => !RESERVED_ARGS.includes(name));
}
function guardrailsOf(file) {
    try {
        const value = readFrontmatter(file, readOwnFile(file)).data.get('guardrails');
        return typeof value === 'string' && value.trim() ? value : undefined;
    }
    catch {
        return undefined; // a broken ralph: the plan reports it with its line
    }
}
/** The first link on the way from the project root to `target` (which is under the root as named). */
function linkOnPath(projectRoot, target) {
    const relative = external_node_path_default().relative(projectRoot, target);
    if (relative.startsWith('..') || external_node_path_default().isAbsolute(relative))
        return undefined;
    let at = projectRoot;
    for (const part of relative.split((external_node_path_default()).sep)) {
        at = external_node_path_default().join(at, part);
        try {
            if ((0,external_node_fs_namespaceObject.lstatSync)(at).isSymbolicLink())
                return at;
        }
        catch {
            return undefined;
        }
    }
    return undefined;
}
/** A path for a message: relative to the project when inside it as named. */
function shown(projectRoot, p) {
    const relative = external_node_path_default().relative(projectRoot, p);
    return relative && !relative.startsWith('..') && !external_node_path_default().isAbsolute(relative) ? relative : p;
}
function isFileThrough(p) {
    try {
        return (0,external_node_fs_namespaceObject.statSync)(p).isFile();
    }
    catch {
        return false;
    }
}

;// CONCATENATED MODULE: ./src/cli/list.ts
// `ralph-action list` (and the action's `mode: list`): the repository's installed ralphs as JSON for a
// `strategy.matrix`. The shape is `{"ralph":["a","b"]}`: a matrix with one vector, so
// `strategy: { matrix: ${{ fromJSON(needs.list.outputs.matrix) }} }` gives each job `matrix.ralph`.



/** GitHub runs at most 256 jobs from one matrix. */
const MAX_MATRIX_JOBS = 256;
/**
 * The project's own ralphs (`<projectRoot>/.agents/ralphs/<name>/RALPH.md`): a matrix job runs on a runner
 * whose home has none of the user's. Names outside letters, digits, - and _ are left out, so a matrix
 * value is safe in a branch name, a concurrency group or an expression; so are ralphs whose files leave the
 * project through a link (ralph/installed.ts).
 */
function ralphMatrix(projectRoot) {
    const names = [];
    const skipped = [];
    for (const name of resolve_listInstalledRalphs(projectRoot, '/nonexistent')) {
        if (!NAME_RE.test(name)) {
            skipped.push(`${JSON.stringify(name)}: a ralph's name may only hold letters, digits, - and _`);
            continue;
        }
        // The same containment rule as every other door: a ralph whose files leave the project is not listed.
        const installed = installedRalph(projectRoot, name);
        if ('problem' in installed)
            skipped.push(`${name}: ${installed.problem}`);
        else
            names.push(name);
    }
    for (const name of names.splice(MAX_MATRIX_JOBS))
        skipped.push(`${name}: a matrix runs at most ${MAX_MATRIX_JOBS} jobs`);
    return { matrix: { ralph: names }, count: names.length, skipped };
}
async function listCommand(args, io) {
    parseArgs(args, []);
    const { matrix, skipped } = ralphMatrix(io.cwd);
    for (const why of skipped)
        io.stderr(`Skipped ${why}\n`);
    io.stdout(`${JSON.stringify(matrix)}\n`);
    return 0;
}

;// CONCATENATED MODULE: ./src/cli/scaffold.ts



// The reference runtime's starter (portable: ralphify ignores checks and reads credit), with our defaults:
// an agent line that works as root, a gate, no ralphify credit trailer, and no commits by the agent (run
// it with --commit: the loop commits what each iteration leaves).
const STARTER_RALPH = `---
agent: claude -p --permission-mode acceptEdits
commands:
  - name: git-log
    run: git log --oneline -5
args:
  - focus
# Gates (ralph-action only): the loop succeeds when every check exits 0. They run with bash.
checks:
  - name: tests
    run: npm test
credit: false
---

You are an autonomous coding agent running in a loop. Each iteration
starts with a fresh context. Your progress lives in the code and git.

## Recent changes

{{ commands.git-log }}

## Focus

{{ args.focus }}

## Task

<!-- Replace this section with your task description -->

- Implement one thing per iteration
- The loop runs the checks after each iteration and shows you what failed
- Leave your changes in the work tree: the loop commits them after each iteration
`;
/** Writes a starter RALPH.md into NAME/ (created) or the current folder; returns the file written. */
function scaffoldRalph(cwd, name) {
    const dir = name ? (0,external_node_path_namespaceObject.join)(cwd, name) : cwd;
    if (name)
        (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
    const file = (0,external_node_path_namespaceObject.join)(dir, 'RALPH.md');
    if ((0,external_node_fs_namespaceObject.existsSync)(file))
        throw new RalphError(`RALPH.md already exists at '${file}'.`);
    (0,external_node_fs_namespaceObject.writeFileSync)(file, STARTER_RALPH);
    return (0,external_node_path_namespaceObject.relative)(cwd, file);
}

;// CONCATENATED MODULE: ./src/cli/main.ts
// The CLI front-end: `ralph-action run|prompt|validate|scaffold|loop|list`. Bad input gets one line and a
// non-zero exit; a stack trace means a bug of ours.











/** Exit codes, documented in the README. */
const EXIT = { ok: 0, config: 1, usage: 2, unsuccessful: 3, cancelled: 130, bug: 70 };
const COMMANDS = {
    run: runCommand,
    prompt: promptCommand,
    validate: validateCommand,
    loop: loopCommand,
    list: listCommand,
    scaffold: async (args, io) => {
        const name = args.find(a => !a.startsWith('-'));
        const file = scaffoldRalph(io.cwd, name);
        io.stdout(`Created ${file}\nEdit the file, then run: ralph-action run ${name ?? '.'} -n 5 --commit\n`);
        return EXIT.ok;
    }
};
async function main(argv, io) {
    const [name, ...rest] = argv;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
        io.stdout(name === 'help' && rest[0] ? helpFor(rest[0]) : HELP);
        return EXIT.ok;
    }
    if (name === '--version' || name === '-V') {
        io.stdout(`ralph-action ${VERSION}\n`);
        return EXIT.ok;
    }
    const command = COMMANDS[name];
    if (!command) {
        const near = closest(name, [...Object.keys(COMMANDS), '--help', '--version']);
        const what = !name.startsWith('-')
            ? `No such command '${name}'.`
            : near
                ? `No such option '${name}'.`
                : `No such option '${name}': options come after a command (ralph-action run my-ralph ${name}).`;
        io.stderr(`Error: ${what}${near ? ` Did you mean '${near}'?` : ''}\nTry 'ralph-action --help' for help.\n`);
        return EXIT.usage;
    }
    if (rest.includes('--help') || rest.includes('-h')) {
        const end = rest.indexOf('--');
        const at = Math.max(rest.indexOf('--help'), rest.indexOf('-h'));
        if (end === -1 || at < end) {
            io.stdout(helpFor(name));
            return EXIT.ok;
        }
    }
    try {
        return await command(rest, io);
    }
    catch (error) {
        if (!(error instanceof UsageError || error instanceof RalphError))
            throw error;
        // One rule: a mistake on the command line exits 2 and points at --help; a problem with a file, a
        // program or the machine exits 1. Either way each line starts with "Error:".
        const usage = error instanceof UsageError || error.exitCode === EXIT.usage;
        for (const line of errorLines(error, io.cwd))
            io.stderr(`Error: ${line}\n`);
        if (usage)
            io.stderr(`Try 'ralph-action ${name} --help' for help.\n`);
        return usage ? EXIT.usage : EXIT.config;
    }
}
/** The error's lines; a ralph problem with a position is `file:line:column: message`, like validate prints it. */
function errorLines(error, cwd) {
    const problem = error instanceof RalphError ? error.problems[0] : undefined;
    if (problem?.line !== undefined) {
        const where = [external_node_path_default().relative(cwd, external_node_path_default().resolve(cwd, problem.file)) || problem.file, problem.line];
        if (problem.column !== undefined)
            where.push(problem.column);
        return [`${where.join(':')}: ${problem.message}`];
    }
    return error.message.split('\n');
}

;// CONCATENATED MODULE: ./src/cli/index.ts
// The `ralph-action` executable.



const io = {
    cwd: process.cwd(),
    env: process.env,
    home: (0,external_node_os_namespaceObject.homedir)(),
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    stdoutRoom: outputRoomOf(process.stdout),
    interactive: process.stdin.isTTY === true
};
main(process.argv.slice(2), io).then(code => {
    process.exitCode = code;
}, error => {
    process.stderr.write(`ralph-action: internal error (please report it): ${error?.stack ?? error}\n`);
    process.exitCode = 70;
});

