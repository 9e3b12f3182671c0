(function() {
  const doc = this && this.nodeType === 9 ? this : document;
  const tagged = doc.querySelectorAll('[data-__ab-ci]');
  for (let i = 0; i < tagged.length; i++) tagged[i].removeAttribute('data-__ab-ci');
  return tagged.length;
})
