import { json } from '@codemirror/lang-json';
import CodeMirror from '@uiw/react-codemirror';
import { useColorScheme } from '../hooks/useColorScheme';

const extensions = [json()];

/** Read-only JSON in the maintained editor component, themed with the OS. */
export function CodeView({ value, label }: { value: unknown; label: string }) {
  const scheme = useColorScheme();
  return (
    <div className="code-view" aria-label={label}>
      <CodeMirror
        value={JSON.stringify(value, null, 2)}
        extensions={extensions}
        editable={false}
        readOnly
        theme={scheme}
        basicSetup={{ lineNumbers: true, foldGutter: true, highlightActiveLine: false, highlightActiveLineGutter: false }}
      />
    </div>
  );
}
