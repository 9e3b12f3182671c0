(function() {
  // The accessibility tree Chrome would build, for pages made only of features whose mapping is
  // known exactly; anything else answers ['unsupported', reason] and the snapshot reads Chrome's
  // own tree. `this` is the document to walk.
  //
  // Answer (as JSON text): ['ok', domCount, nodes] where each node is [parent, role, name, ignored, domIndex,
  // prop] in preorder (children in order). domIndex is the node's position in the DOM agent's
  // preorder (document = 0; whitespace-only text nodes skipped, as the DOM agent does), -1 when
  // the node has none. prop: level (heading, listitem), checked (checkbox, radio), href (link).
  const doc = this && this.nodeType === 9 ? this : document;
  const view = doc.defaultView || window;
  const WS = /^[ \t\n\r\f]*$/;
  class Unsupported { constructor(reason) { this.reason = reason; } }
  const no = (reason) => { throw new Unsupported(reason); };

  // The DOM agent's numbering, and a first pass that refuses what it cannot see the same way.
  const index = new Map();
  let count = 0;
  const number = (node) => {
    if (node.nodeType === 3 && WS.test(node.data)) return;
    index.set(node, count++);
    if (node.nodeType === 1) {
      if (node.shadowRoot) no('shadow root');
      if (node.localName === 'iframe' || node.localName === 'frame' || node.localName === 'object' || node.localName === 'embed') no('frame');
      if (node.localName === 'template') return;
    }
    for (let c = node.firstChild; c; c = c.nextSibling) number(c);
  };

  // Stylesheets may only paint: every declaration must be of a property that cannot change
  // Chrome's tree (so every element keeps the user-agent display, visibility, white-space…
  // of its tag and no style needs computing), except list-style, read per list item. Rules
  // we cannot read, at-rules and pseudo-element selectors are out.
  const PAINT = /^(color|background(-.*)?|margin(-.*)?|padding(-.*)?|border(-.*)?|font(-.*)?|line-height|text-align|text-decoration(-.*)?|letter-spacing|word-spacing|width|height|min-width|min-height|max-width|max-height|box-sizing|box-shadow|outline(-.*)?|opacity|cursor|vertical-align|gap|row-gap|column-gap|list-style(-type|-position|-image)?|accent-color|caret-color|text-indent|transition(-.*)?)$/;
  let listStyles = false;
  const sheets = () => {
    for (const sheet of doc.styleSheets) {
      let rules;
      try { rules = sheet.cssRules; } catch (e) { no('unreadable stylesheet'); }
      for (const rule of rules) {
        if (!(rule instanceof view.CSSStyleRule) || rule.cssRules.length) no('stylesheet at-rule');
        if (/::?(before|after|marker|first-letter|first-line|placeholder|backdrop|selection)/i.test(rule.selectorText)) no('pseudo-element rule');
        const style = rule.style;
        for (let i = 0; i < style.length; i++) {
          const property = style[i];
          if (!PAINT.test(property)) no('stylesheet property ' + property);
          if (property.startsWith('list-style')) listStyles = true;
        }
      }
    }
  };

  const BLOCK = {div: 'block', p: 'block', h1: 'block', h2: 'block', h3: 'block', h4: 'block', h5: 'block',
    h6: 'block', ul: 'block', ol: 'block', nav: 'block', main: 'block', header: 'block', footer: 'block',
    article: 'block', section: 'block', body: 'block', li: 'list-item', table: 'table', caption: 'table-caption',
    thead: 'table-header-group', tbody: 'table-row-group', tr: 'table-row', th: 'table-cell', td: 'table-cell'};
  const INLINE = {span: 'inline', a: 'inline', em: 'inline', strong: 'inline', label: 'inline'};
  const ATOMIC = {button: 'inline-block', input: 'inline-block', img: 'inline'};
  const SKIP = {script: 1, style: 1, noscript: 1, template: 1};
  const ATTRS = {
    '*': {class: 1, id: 1},
    a: {href: 1}, button: {type: 1},
    nav: {'aria-label': 1}, main: {'aria-label': 1}, article: {'aria-label': 1}, section: {'aria-label': 1}, input: {type: 1, id: 1, name: 1, placeholder: 1, 'aria-label': 1},
    div: {role: 1, 'aria-label': 1}, label: {for: 1},
    img: {alt: 1, src: 1, width: 1, height: 1}, script: {src: 1, type: 1}, style: {}
  };
  const HEADINGS = {h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6};
  const MARKERS = {disc: '\u2022 ', circle: '\u25e6 ', square: '\u25aa '};

  const styleOf = (el) => view.getComputedStyle(el);
  // One XPath query (native, so cheap on large pages) for any attribute outside ATTRS.
  const attributes = () => {
    const allowed = ["starts-with(name(), 'data-')"];
    for (const tag in ATTRS) {
      for (const name in ATTRS[tag]) {
        allowed.push(tag === '*' ? `name() = '${name}'` : `(name() = '${name}' and local-name(..) = '${tag}')`);
      }
    }
    const query = `descendant-or-self::*[@*[not(${allowed.join(' or ')})]]`;
    const found = doc.evaluate(query, doc.body, null, view.XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    if (found) {
      const name = Array.from(found.attributes).map((a) => a.name).find((n) => !(ATTRS['*'][n] || (ATTRS[found.localName] && ATTRS[found.localName][n]) || n.startsWith('data-')));
      no('attribute ' + name + ' on ' + found.localName);
    }
  };
  const check = (el) => {
    const tag = el.localName;
    if (el.namespaceURI !== 'http://www.w3.org/1999/xhtml') no('foreign element');
    if (SKIP[tag]) return null;
    const expected = BLOCK[tag] || INLINE[tag] || ATOMIC[tag];
    if (!expected) no('element ' + tag);
    return true;
  };

  const nodes = [];
  const emit = (parent, role, name, ignored, dom, prop) => {
    nodes.push([parent, role, name, ignored ? 1 : 0, dom === undefined ? -1 : dom, prop === undefined ? null : prop]);
    return nodes.length - 1;
  };
  // A name Chrome takes as it is: words separated by single spaces.
  const plain = (text) => text !== null && /^[^ \t\n\r\f]+( [^ \t\n\r\f]+)*$/.test(text);
  const domOf = (node) => { const i = index.get(node); return i === undefined ? -1 : i; };

  // Rendered text of each text node of one block container, CSS white-space collapsing:
  // runs of spaces become one, a space after a space or at a line start goes, and the last
  // space before the end of the block goes. A lone space next to a button, input or image is
  // not in Chrome's tree. Returns a Map text node -> rendered text.
  const rendered = new Map();
  const layoutBlock = (container) => {
    const items = []; // {text node, s} or {atomic}
    const flush = () => {
      let space = true;
      for (const item of items) {
        if (item.atomic) { space = false; continue; }
        let s = item.s;
        if (space && s.startsWith(' ')) s = s.slice(1);
        if (s.length) space = s.endsWith(' ');
        item.s = s;
      }
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i];
        if (item.atomic) break;
        if (item.s.endsWith(' ')) item.s = item.s.slice(0, -1);
        if (item.s.length) break;
      }
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (item.atomic) continue;
        if (item.s === ' ' && ((items[i - 1] && items[i - 1].atomic) || (items[i + 1] && items[i + 1].atomic))) item.s = '';
        rendered.set(item.node, item.s);
      }
      items.length = 0;
    };
    const inline = (node) => {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) { items.push({node: c, s: c.data.replace(/[ \t\n\r\f]+/g, ' ')}); continue; }
        if (c.nodeType !== 1) continue;
        const tag = c.localName;
        if (SKIP[tag]) continue;
        if (INLINE[tag]) { inline(c); continue; }
        if (ATOMIC[tag]) { items.push({atomic: true}); if (tag === 'button') layoutBlock(c); continue; }
        flush();
        layoutBlock(c);
      }
    };
    inline(container);
    flush();
  };

  const textOf = (node) => {
    // Concatenated rendered text under node (name from contents), collapsed and trimmed.
    let out = '';
    const walk = (n) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) { out += rendered.get(c) || ''; continue; }
        if (c.nodeType !== 1 || SKIP[c.localName]) continue;
        if (ATOMIC[c.localName] || c.localName === 'label') no('control inside a name');
        if (BLOCK[c.localName] && c.localName !== 'div' && c.localName !== 'p') no('block inside a name');
        walk(c);
      }
    };
    walk(node);
    return out.replace(/[ \t\n\r\f]+/g, ' ').trim();
  };

  const labels = new Map(); // control -> label
  const findLabels = () => doc.querySelectorAll('label').forEach((label) => {
    const target = label.getAttribute('for');
    if (target === null) return;
    const control = doc.getElementById(target);
    if (!control || control.localName !== 'input' || labels.has(control)) no('label');
    labels.set(control, label);
  });
  const labelled = (label) => {
    const control = label.getAttribute('for') !== null ? doc.getElementById(label.getAttribute('for')) : null;
    return control && (control.type === 'checkbox' || control.type === 'radio');
  };

  // Whether a block's children are all inline content (Chrome includes such a div as generic).
  const inlineOnly = (el) => {
    let text = false;
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) { if (!WS.test(c.data)) text = true; continue; }
      if (c.nodeType !== 1 || SKIP[c.localName]) continue;
      if (INLINE[c.localName]) { text = true; continue; }
      return ATOMIC[c.localName] ? no('control in a div') : false;
    }
    return text;
  };
  const blockOnly = (el) => {
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) { if (!WS.test(c.data)) return false; continue; }
      if (c.nodeType !== 1 || SKIP[c.localName]) continue;
      if (!BLOCK[c.localName]) return false;
    }
    return true;
  };

  let listDepth = 0;
  let inTable = null;
  const children = (el, parent) => {
    for (let c = el.firstChild; c; c = c.nextSibling) visit(c, parent);
  };
  const visit = (node, parent) => {
    if (node.nodeType === 3) {
      const s = rendered.get(node);
      if (s === undefined) { if (WS.test(node.data)) return; no('text outside a block'); }
      if (s.length) emit(parent, 'StaticText', s, false, domOf(node) < 0 ? -1 : domOf(node));
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.localName;
    if (check(el) === null) return;
    const dom = domOf(el);
    switch (tag) {
      case 'span': case 'label':
        if (tag === 'label' && labelled(el)) {
          if (el.id) no('id on a checkbox label');
          const me = emit(parent, '', '', true, dom);
          for (let c = el.firstChild; c; c = c.nextSibling) {
            if (c.nodeType === 3 && (rendered.get(c) || '').length) emit(me, '', '', true, domOf(c));
            else if (c.nodeType === 1) no('element inside a checkbox label');
          }
          return;
        }
        if (tag === 'label') { const me = emit(parent, 'LabelText', '', false, dom); children(el, me); return; }
        // An element with an id is in Chrome's tree (a possible relation target).
        if (el.id) { const me = emit(parent, 'generic', '', false, dom); children(el, me); return; }
        children(el, parent); return;
      case 'div': {
        if (el.hasAttribute('role') || el.hasAttribute('aria-label')) {
          // Only a toolbar named by a plain aria-label.
          if (el.getAttribute('role') !== 'toolbar' || !plain(el.getAttribute('aria-label'))) no('div role');
          const me = emit(parent, 'toolbar', el.getAttribute('aria-label'), false, dom); children(el, me); return;
        }
        if (el.id && !el.firstChild) no('empty div with an id');
        if (el.id || inlineOnly(el)) { const me = emit(parent, 'generic', '', false, dom); children(el, me); return; }
        if (!blockOnly(el) || !el.firstElementChild) no('div content');
        const me = emit(parent, '', '', true, dom); children(el, me); return;
      }
      case 'body': {
        if (el.id) no('id on body');
        const me = emit(parent, '', '', true, dom); children(el, me); return;
      }
      case 'p': { const me = emit(parent, 'paragraph', '', false, dom); children(el, me); return; }
      case 'em': { const me = emit(parent, 'emphasis', '', false, dom); children(el, me); return; }
      case 'strong': { const me = emit(parent, 'strong', '', false, dom); children(el, me); return; }
      case 'nav': case 'main': case 'article': case 'section': case 'header': case 'footer': {
        if ((tag === 'header' || tag === 'footer') && el.parentElement !== doc.body) no('scoped ' + tag);
        let role = {nav: 'navigation', main: 'main', article: 'article', section: 'generic', header: 'banner', footer: 'contentinfo'}[tag];
        // A landmark named by a plain aria-label (a named section is a region).
        const label = el.getAttribute('aria-label');
        if (label !== null && !plain(label)) no('aria-label spacing');
        if (label !== null && tag === 'section') role = 'region';
        const me = emit(parent, role, label || '', false, dom); children(el, me); return;
      }
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': {
        const me = emit(parent, 'heading', textOf(el), false, dom, HEADINGS[tag]); children(el, me); return;
      }
      case 'ul': case 'ol': {
        for (const c of el.children) if (c.localName !== 'li') no('list child ' + c.localName);
        const me = emit(parent, 'list', '', false, dom);
        listDepth++;
        let n = 0;
        for (let c = el.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 3 && !WS.test(c.data)) no('text in a list');
          if (c.nodeType !== 1) continue;
          n++;
          visitItem(c, me, tag, n);
        }
        listDepth--;
        return;
      }
      case 'a': {
        if (el.getAttribute('href') === null) no('link without href');
        const me = emit(parent, 'link', textOf(el), false, dom, el.href); children(el, me); return;
      }
      case 'button': {
        const type = el.getAttribute('type');
        if (type !== null && type !== 'button' && type !== 'submit') no('button type');
        const me = emit(parent, 'button', textOf(el), false, dom); children(el, me); return;
      }
      case 'input': {
        const type = el.getAttribute('type');
        const label = labels.get(el);
        const aria = el.getAttribute('aria-label');
        if (aria !== null && (label || !plain(aria))) no('input aria-label');
        const placeholder = el.getAttribute('placeholder');
        if (placeholder !== null && (label || aria !== null || !plain(placeholder) || type !== 'search')) no('input placeholder');
        const name = aria !== null ? aria : label ? textOf(label) : '';
        if (type === 'checkbox' || type === 'radio') {
          if (placeholder !== null) no('placeholder on a checkbox');
          if (el.indeterminate) no('indeterminate');
          emit(parent, type, name, false, dom, String(el.checked)); return;
        }
        if (type === 'search') {
          if (el.value !== '') no('search input content');
          emit(parent, 'searchbox', placeholder !== null ? placeholder : name, false, dom);
          return;
        }
        if (type === 'text' || type === null) {
          if (el.value !== '' || el.placeholder) no('text input content');
          const me = emit(parent, 'textbox', name, false, dom);
          emit(me, 'generic', '', false, -1);
          return;
        }
        no('input type ' + type);
        return;
      }
      case 'img': {
        const alt = el.getAttribute('alt');
        if (alt === '') { if (el.id) no('id on a presentational image'); emit(parent, '', '', true, dom); return; }
        emit(parent, 'image', alt === null ? '' : alt.replace(/[ \t\n\r\f]+/g, ' ').trim(), false, dom); return;
      }
      case 'table': {
        if (inTable) no('nested table');
        const caption = el.querySelector(':scope > caption');
        const head = el.querySelector(':scope > thead');
        if (!caption || !head || !head.querySelector('th')) no('table without caption and header');
        for (const c of el.children) if (!{caption: 1, thead: 1, tbody: 1}[c.localName]) no('table child');
        for (const cell of el.querySelectorAll('td, th')) if (cell.getAttribute('colspan') || cell.getAttribute('rowspan')) no('span');
        for (const _th of el.querySelectorAll('tbody th')) no('row header');
        inTable = el;
        const me = emit(parent, 'table', textOf(caption), false, dom);
        children(el, me);
        inTable = null;
        return;
      }
      case 'caption': { const me = emit(parent, 'caption', '', false, dom); children(el, me); return; }
      case 'thead': { const me = emit(parent, 'rowgroup', '', false, dom); children(el, me); return; }
      case 'tbody': {
        if (el.id) no('id on tbody'); const me = emit(parent, '', '', true, dom); children(el, me); return; }
      case 'tr': {
        let cells = 0;
        for (const _c of el.children) cells++;
        if (cells === 0) no('empty row');
        const me = emit(parent, 'row', '', false, dom); children(el, me); return;
      }
      case 'th': { const me = emit(parent, 'columnheader', textOf(el), false, dom); children(el, me); return; }
      case 'td': { const me = emit(parent, 'cell', textOf(el), false, dom); children(el, me); return; }
      default:
        no('element ' + tag);
    }
  };
  const visitItem = (li, parent, listTag, n) => {
    check(li);
    const style = listStyles ? styleOf(li) : {listStyleType: listTag === 'ol' ? 'decimal' : listDepth === 1 ? 'disc' : listDepth === 2 ? 'circle' : 'square'};
    const me = emit(parent, 'listitem', '', false, domOf(li), listDepth);
    let marker;
    if (listStyles && style.listStyleImage !== 'none') no('list-style-image');
    if (style.listStyleType === 'none') marker = null;
    else if (listTag === 'ol' && style.listStyleType === 'decimal') marker = n + '. ';
    else if (listTag === 'ul' && MARKERS[style.listStyleType]) marker = MARKERS[style.listStyleType];
    else no('list style');
    if (li.getAttribute('value') !== null || (listTag === 'ol' && li.parentElement.getAttribute('start') !== null)) no('list numbering');
    if (marker !== null) {
      const m = emit(me, 'ListMarker', marker, false, -1);
      emit(m, '', '', true, -1);
    }
    children(li, me);
  };

  try {
    if (doc.readyState === 'loading') no('still loading');
    if (doc.compatMode !== 'CSS1Compat') no('quirks mode');
    if (!doc.body || doc.body.localName !== 'body') no('no body');
    if (doc.documentElement.attributes.length > 1 || (doc.documentElement.attributes.length === 1 && !doc.documentElement.hasAttribute('lang'))) no('html attributes');
    if (doc.adoptedStyleSheets && doc.adoptedStyleSheets.length) no('adopted stylesheets');
    attributes();
    number(doc);
    sheets();
    findLabels();
    const root = emit(-1, 'RootWebArea', doc.title, false, 0);
    const html = emit(root, '', '', true, domOf(doc.documentElement));
    layoutBlock(doc.body);
    visit(doc.body, html);
    return JSON.stringify(['ok', count, nodes]);
  } catch (e) {
    if (e instanceof Unsupported) return JSON.stringify(['unsupported', e.reason]);
    return JSON.stringify(['unsupported', 'error: ' + (e && e.message)]);
  }
})
