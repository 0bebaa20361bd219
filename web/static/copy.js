// The explorer's one script: a "copy as CGSuite" button (button.copy-cgsuite) copies its value's
// CGSuite plain text (data-cgsuite) to the clipboard and says so for a moment. Without it the
// text is still in the button's title.
(() => {
  const fallback = (text) => {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    let copied = false;
    try { copied = document.execCommand('copy'); } catch (error) { copied = false; }
    area.remove();
    return copied;
  };
  document.addEventListener('click', async (event) => {
    const button = event.target.closest('button.copy-cgsuite');
    if (!button) return;
    const text = button.dataset.cgsuite;
    let copied = false;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch (error) {
      copied = fallback(text);
    }
    button.dataset.label = button.dataset.label || button.textContent;
    button.dataset.state = copied ? 'copied' : 'failed';
    button.textContent = copied ? 'copied' : 'not copied: select it from the title';
    clearTimeout(button.restore);
    button.restore = setTimeout(() => { button.textContent = button.dataset.label; delete button.dataset.state; }, 2000);
  });
})();
